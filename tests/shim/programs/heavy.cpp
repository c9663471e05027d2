// A header-heavy C++ file: STL, templates, lambdas, namespaces, classes.
// Everything outside the pragmas must come out of joulecc unchanged.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace geo {
template <typename T>
struct point {
  T x{}, y{};
  point operator+(const point& o) const { return {x + o.x, y + o.y}; }
};

template <typename T>
T norm1(const point<T>& p) {
  return (p.x < 0 ? -p.x : p.x) + (p.y < 0 ? -p.y : p.y);
}
}  // namespace geo

class histogram {
 public:
  explicit histogram(int bins) : counts_(static_cast<std::size_t>(bins), 0) {}
  void add(int bin) { counts_[static_cast<std::size_t>(bin)]++; }
  long total() const { return std::accumulate(counts_.begin(), counts_.end(), 0L); }

  // A task inside a member function: uses `this` through members.
  void fill_parallel(int n) {
    for (int i = 0; i < n; i++) {
#pragma oss task commutative(counts_) firstprivate(i)
      add(i % static_cast<int>(counts_.size()));
    }
#pragma oss taskwait
  }

 private:
  std::vector<long> counts_;
};

template <typename F>
auto apply_all(std::vector<int>& v, F f) -> decltype(f(0)) {
  decltype(f(0)) acc{};
  for (std::size_t i = 0; i < v.size(); i++) {
#pragma oss task inout(v[i]) firstprivate(f)
    v[i] = f(v[i]);
  }
#pragma oss taskwait
  for (int x : v) acc += x;
  return acc;
}

int main() {
  std::map<std::string, std::unique_ptr<geo::point<double>>> named;
  named["a"] = std::make_unique<geo::point<double>>(geo::point<double>{1.5, -2.0});
  named["b"] = std::make_unique<geo::point<double>>(geo::point<double>{-0.5, 4.0});
  geo::point<double> sum{};
  for (const auto& [k, p] : named) sum = sum + *p;
  std::vector<int> v(100);
  std::iota(v.begin(), v.end(), 0);
  auto squares = apply_all(v, [](int x) { return x * x; });
  histogram h(7);
  h.fill_parallel(700);
  std::function<int(int)> twice = [](int x) { return 2 * x; };
  std::vector<std::string> words = {"pear", "apple", "fig"};
  std::sort(words.begin(), words.end(), [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
  std::printf("heavy: %g %d %ld %d %s\n", geo::norm1(sum), squares, h.total(), twice(21), words[0].c_str());
  if (geo::norm1(sum) != 3.0 || squares != 328350 || h.total() != 700 || twice(21) != 42 || words[0] != "fig")
    return 1;
  std::printf("OK\n");
  return 0;
}
