// A C++98 program (no C++11 anywhere) built with -std=c++98: joule/ompss.h
// compiles there, and joulecc compiles the translation as C++11.
// parity: tasks=2 taskwaits=1
#include <cstdio>
#include <vector>

struct Accumulator {
  std::vector<long> parts;
  explicit Accumulator(int n) : parts(n, 0) {}
};

static void fill(long *p, int k) {
  for (int i = 0; i < 500; ++i) *p += (k * i) % 13;
}

int main() {
  Accumulator a(16);
  long *parts = &a.parts[0];
  for (int k = 0; k < 16; ++k) {
#pragma oss task inout(parts[k])
    fill(&parts[k], k);
  }
  long sum = 0;
#pragma oss task in(parts[0;16]) out(sum)
  for (int k = 0; k < 16; ++k) sum += parts[k];
#pragma oss taskwait
  std::printf("sum = %ld\n", sum);
  return 0;
}
