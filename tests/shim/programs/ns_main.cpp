// Calls to a header-declared task function, qualified and through a
// using-directive; built together with ns_kernels.cpp.
#include <cstdio>

#include "ns_kernels.hpp"

int main() {
  std::vector<int> v(10, 0);
  for (int r = 0; r < 3; r++)
    for (int i = 0; i < 10; i++) a::b::bump(v, i);
  using namespace a::b;
  bump(v, 0, 5);
#pragma oss taskwait
  int s = 0;
  for (int x : v) s += x;
  std::printf("ns: %d\n", s);
  if (s != 35) return 1;
  std::printf("OK\n");
  return 0;
}
