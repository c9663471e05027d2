// C++ translation: lambdas, captures, this, templates, namespaces.
#include <vector>

namespace work {
#pragma oss task in(v[0;n]) inout(out) label(sum)
void sum(const std::vector<double>& v, int n, double& out);
}  // namespace work

struct counter {
  int hits = 0;
  void bump(int k) {
#pragma oss task inout(hits) firstprivate(k)
    hits += k;
#pragma oss taskwait
  }
};

template <typename T>
T twice_all(std::vector<T>& v) {
  T total{};
  for (std::size_t i = 0; i < v.size(); i++) {
#pragma oss task inout(v[i])
    v[i] *= 2;
  }
#pragma oss taskloop grainsize(4) reduction(+: total) shared(v)
  for (std::size_t i = 0; i < v.size(); i++) total += v[i];
#pragma oss taskwait
  return total;
}

int run(std::vector<double>& v) {
  double s = 0;
  int scratch = 0;
  work::sum(v, static_cast<int>(v.size()), s);
#pragma oss task private(scratch) in(s)
  {
    scratch = static_cast<int>(s);
    (void)scratch;
  }
#pragma oss critical
  s += 1;
#pragma oss taskwait on(s)
  return static_cast<int>(twice_all(v) + s);
}
