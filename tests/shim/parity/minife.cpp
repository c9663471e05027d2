// A MiniFE-like C++ program whose tasks are all in a header: templates
// instantiated with float and double, an inline function, a member function.
// parity: tasks=4 taskwaits=4
#include <cstdio>

#include "include/minife_kernels.hpp"
#include "include/minife_kernels.hpp"  // twice, as headers of headers do

int main() {
  const std::size_t n = 1000;
  minife::Vector x(n), y(n), w(n);
  minife::fill_ramp(n, x.data());
  minife::fill_ramp(n, y.data());
  y.scale(0.25);
  minife::waxpby(n, 2.0, x.data(), -1.0, y.data(), w.data());
  double d = minife::dot(n, w.data(), x.data());
  std::vector<float> xf(n, 1.5f), yf(n, 2.0f), wf(n);
  minife::waxpby<float>(n, 1.0f, &xf[0], 0.5f, &yf[0], &wf[0]);
  float df = minife::dot<float>(n, &wf[0], &xf[0]);
  std::printf("dot(w, x) = %.3f\ndot(wf, xf) = %.3f\n", d, static_cast<double>(df));
  return 0;
}
