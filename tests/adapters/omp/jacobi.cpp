// A Jacobi loop code in C++ (g++ -fopenmp): parallel for with reductions in
// a time loop, a std::vector per thread indexed by omp_get_thread_num, and a
// recursive task sum with a cutoff; results compared with a sequential run.
#include <omp.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "check.h"

namespace {

constexpr int kN = 200;

double sweep(std::vector<double>& u, std::vector<double>& next, bool parallel) {
  double diff = 0.0;
#pragma omp parallel for schedule(static) reduction(max : diff) if (parallel)
  for (int i = 1; i < kN - 1; ++i)
    for (int j = 1; j < kN - 1; ++j) {
      const double v = 0.25 * (u[(i - 1) * kN + j] + u[(i + 1) * kN + j] + u[i * kN + j - 1] +
                               u[i * kN + j + 1]);
      diff = std::max(diff, std::fabs(v - u[i * kN + j]));
      next[i * kN + j] = v;
    }
  u.swap(next);
  return diff;
}

std::vector<double> solve(bool parallel, int iterations) {
  std::vector<double> u(kN * kN, 0.0), next(kN * kN, 0.0);
  for (int j = 0; j < kN; ++j) u[j] = next[j] = 1.0;  // hot top edge
  for (int it = 0; it < iterations; ++it) sweep(u, next, parallel);
  return u;
}

long tree_sum(const int* v, long n) {
  if (n < 1000) return std::accumulate(v, v + n, 0L);
  long a = 0, b = 0;
#pragma omp task shared(a)
  a = tree_sum(v, n / 2);
#pragma omp task shared(b)
  b = tree_sum(v + n / 2, n - n / 2);
#pragma omp taskwait
  return a + b;
}

}  // namespace

int main() {
  const auto par = solve(true, 50), seq = solve(false, 50);
  CHECK(par == seq);  // the same arithmetic per point: bit for bit

  std::vector<long> per_thread(std::size_t(omp_get_max_threads()), 0);
  int joule_members = 0;
#pragma omp parallel reduction(+ : joule_members)
  {
    per_thread[std::size_t(omp_get_thread_num())] += 1;
    joule_members += on_joule();
  }
  CHECK(std::accumulate(per_thread.begin(), per_thread.end(), 0L) == omp_get_max_threads());
  CHECK(joule_members == omp_get_max_threads());

  std::vector<int> v(100000);
  std::iota(v.begin(), v.end(), 0);
  long total = 0;
#pragma omp parallel
#pragma omp single
  total = tree_sum(v.data(), long(v.size()));
  CHECK(total == 99999L * 100000L / 2);
  return finish("jacobi");
}
