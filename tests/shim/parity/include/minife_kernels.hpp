// MiniFE-style kernels in a header: function templates instantiated with
// several types, inline functions, class member functions defined in the
// class, each with statement tasks and taskwaits (OmpSs-2 spec, "task
// construct": a task may appear in any function body).
#pragma once

#include <cstddef>
#include <vector>

#include "minife_detail.hpp"

namespace minife {

template <typename Scalar>
void waxpby(std::size_t n, Scalar alpha, const Scalar *x, Scalar beta, const Scalar *y,
            Scalar *w) {
  const std::size_t bs = 64;
  for (std::size_t b = 0; b < n; b += bs) {
    std::size_t len = b + bs < n ? bs : n - b;
#pragma oss task in(x[b;len], y[b;len]) out(w[b;len]) label(waxpby block)
    for (std::size_t i = b; i < b + len; ++i) w[i] = alpha * x[i] + beta * y[i];
  }
#pragma oss taskwait
}

template <typename Scalar>
Scalar dot(std::size_t n, const Scalar *x, const Scalar *y) {
  const std::size_t bs = 64;
  std::vector<Scalar> part((n + bs - 1) / bs, Scalar(0));
  for (std::size_t b = 0; b < n; b += bs) {
    Scalar *slot = &part[b / bs];
    std::size_t len = b + bs < n ? bs : n - b;
#pragma oss task in(x[b;len], y[b;len]) out(*slot)
    {
      Scalar s = 0;
      for (std::size_t i = b; i < b + len; ++i) s += x[i] * y[i];
      *slot = s;
    }
  }
#pragma omp taskwait
  Scalar sum = 0;
  for (Scalar p : part) sum += p;
  return sum;
}

inline void fill_ramp(std::size_t n, double *v) {
  for (std::size_t i = 0; i < n; i += 100) {
    std::size_t len = i + 100 < n ? 100 : n - i;
#pragma oss task out(v[i;len])
    detail::ramp(v + i, len, i);
  }
#pragma oss taskwait
}

class Vector {
 public:
  explicit Vector(std::size_t n) : data_(n, 0.0) {}
  double *data() { return data_.data(); }
  std::size_t size() const { return data_.size(); }
  void scale(double a) {
    double *d = data_.data();
    for (std::size_t i = 0; i < data_.size(); i += 128) {
      std::size_t len = i + 128 < data_.size() ? 128 : data_.size() - i;
#pragma oss task inout(d[i;len]) firstprivate(a)
      for (std::size_t k = i; k < i + len; ++k) d[k] *= a;
    }
#pragma oss taskwait
  }

 private:
  std::vector<double> data_;
};

}  // namespace minife
