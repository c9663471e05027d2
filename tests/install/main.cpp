// Consumer of an installed joule (C++ API): a chain of dependent tasks and a
// taskloop; exits non-zero if either gives a wrong answer.
#include <joule/joule.hpp>

#include <cstdio>
#include <vector>

int main() {
  joule::runtime rt({{"JOULE_WORKERS", "2"}});

  // Each task doubles x after the previous one (inout chain): 1 << 10.
  long x = 1;
  for (int i = 0; i < 10; ++i) joule::spawn({joule::inout(x)}, [&x] { x *= 2; });
  joule::taskwait();

  std::vector<int> v(1000, 0);
  joule::taskloop(0, 1000, 100, [&v](int i) { v[static_cast<std::size_t>(i)] = i; });
  long sum = 0;
  for (int e : v) sum += e;

  const bool ok = x == 1024 && sum == 999L * 1000L / 2;
  std::printf("consumer_cxx: joule %s, %d workers, x=%ld sum=%ld: %s\n", joule::version(),
              joule::num_workers(), x, sum, ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
