// A C++ task that throws: the exception reaches the parent's taskwait with
// its type and message; a sibling still runs; later tasks are unaffected.
#include <cstdio>
#include <stdexcept>
#include <string>

struct custom_error {
  int code;
};

int main() {
  int done = 0;
  std::string message;
  try {
#pragma oss task
    { throw std::runtime_error("boom from a task"); }
#pragma oss task inout(done)
    done++;
#pragma oss taskwait
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  int code = 0;
  try {
#pragma omp task
    throw custom_error{42};
#pragma omp taskwait
  } catch (const custom_error& e) {
    code = e.code;
  }
#pragma oss task inout(done)
  done += 10;
#pragma oss taskwait
  std::printf("throw: '%s' code %d done %d\n", message.c_str(), code, done);
  if (message != "boom from a task" || code != 42 || done != 11) return 1;
  std::printf("OK\n");
  return 0;
}
