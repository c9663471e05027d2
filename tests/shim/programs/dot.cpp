// Dot product, C++ translation (lambdas): sections, commutative, taskloop
// with a reduction, and a function task in a namespace.
#include <cstdio>
#include <vector>

namespace kernels {
#pragma oss task in(a[0;n], b[0;n]) out(*out)
void partial(const double* a, const double* b, long n, double* out);
void partial(const double* a, const double* b, long n, double* out) {
  double s = 0;
  for (long i = 0; i < n; i++) s += a[i] * b[i];
  *out = s;
}
}  // namespace kernels

int main() {
  const long n = 40000, chunk = 1000;
  std::vector<double> a(n), b(n), parts(n / chunk);
  double expect = 0;
  for (long i = 0; i < n; i++) {
    a[i] = static_cast<double>(i % 5);
    b[i] = 0.5;
    expect += a[i] * b[i];
  }
  const double* pa = a.data();
  const double* pb = b.data();
  for (long c = 0; c < n / chunk; c++) kernels::partial(pa + c * chunk, pb + c * chunk, chunk, &parts[c]);
  double result = 0;
  for (long c = 0; c < n / chunk; c++) {
#pragma oss task in(parts[c]) commutative(result)
    result += parts[c];
  }
  double loop_sum = 0;
#pragma oss taskloop grainsize(500) reduction(+: loop_sum)
  for (long i = 0; i < n; i++) loop_sum += pa[i] * pb[i];
#pragma oss taskwait
  std::printf("dot.cpp: %.1f %.1f expected %.1f\n", result, loop_sum, expect);
  if (result != expect || loop_sum != expect) return 1;
  std::printf("OK\n");
  return 0;
}
