// OmpSs-2 program for the installed joulecc and joule_ompss_sources(): an
// inout chain, a task reading the chain's result and a commutative sum over
// array sections; prints OK and exits 0 only when every value is right.
#include <cstdio>
#include <vector>

namespace {

long chain_and_follow(long& y) {
  long x = 1;
  for (int i = 0; i < 10; ++i) {
#pragma oss task inout(x)
    x *= 2;
  }
#pragma oss task in(x)out(y)
  y = x + 1;
#pragma oss taskwait
  return x;
}

long section_sum(const std::vector<long>& v, long chunk) {
  long total = 0;
  const long* p = v.data();
  const long n = static_cast<long>(v.size());
  for (long i = 0; i < n; i += chunk) {
#pragma oss task in(p[i; chunk])commutative(total)
    for (long k = i; k < i + chunk; ++k) total += p[k];
  }
#pragma oss taskwait
  return total;
}

}  // namespace

int main() {
  long y = 0;
  const long x = chain_and_follow(y);
  std::vector<long> v(1000);
  for (long i = 0; i < 1000; ++i) v[static_cast<std::size_t>(i)] = i;
  const long sum = section_sum(v, 100);
  const bool ok = x == 1024 && y == 1025 && sum == 999L * 1000L / 2;
  std::printf("ompss chain (C++): x=%ld y=%ld sum=%ld: %s\n", x, y, sum, ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
