// The types and user-declared reductions of task_udr.cpp: a class that
// counts its live objects, a vector-like class owning heap memory,
// std::complex<double> and std::vector<long>, and the expected results.
#pragma once

#include <atomic>
#include <complex>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

inline constexpr int kN = 240;

inline std::atomic<long> g_live{0};  // constructed minus destroyed Stat objects

// sum, count and the smallest value with its index (ties: the smaller index)
class Stat {
 public:
  Stat() : sum_(0), count_(0), minv_(1 << 30), mini_(1 << 30) { ++g_live; }
  Stat(const Stat& o) : sum_(o.sum_), count_(o.count_), minv_(o.minv_), mini_(o.mini_) { ++g_live; }
  Stat& operator=(const Stat&) = default;
  ~Stat() {
    --g_live;
    sum_ = -999999;  // a use after destruction shows
  }
  void add(int v, int i) {
    sum_ += v;
    ++count_;
    if (v < minv_ || (v == minv_ && i < mini_)) {
      minv_ = v;
      mini_ = i;
    }
  }
  void merge(const Stat& o) {
    sum_ += o.sum_;
    count_ += o.count_;
    if (o.minv_ < minv_ || (o.minv_ == minv_ && o.mini_ < mini_)) {
      minv_ = o.minv_;
      mini_ = o.mini_;
    }
  }
  long count() const { return count_; }
  bool operator==(const Stat& o) const {
    return sum_ == o.sum_ && count_ == o.count_ && minv_ == o.minv_ && mini_ == o.mini_;
  }
  void print(const char* what) const {
    std::printf("%s: sum %ld count %ld min %d at %d\n", what, sum_, count_, minv_, mini_);
  }

 private:
  long sum_, count_;
  int minv_, mini_;
};

// No initializer: the default constructor makes each private copy.
#pragma omp declare reduction(stat:Stat : omp_out.merge(omp_in))

// A vector-like class owning heap memory: copies allocate, the destructor frees.
class Buf {
 public:
  explicit Buf(int n = 0) : n_(n), p_(n ? new long[n]() : nullptr) {}
  Buf(const Buf& o) : n_(o.n_), p_(o.n_ ? new long[o.n_] : nullptr) {
    if (n_) std::memcpy(p_, o.p_, sizeof(long) * n_);
  }
  Buf& operator=(const Buf& o) {
    Buf t(o);
    std::swap(n_, t.n_);
    std::swap(p_, t.p_);
    return *this;
  }
  ~Buf() { delete[] p_; }
  int size() const { return n_; }
  long& operator[](int i) { return p_[i]; }
  long operator[](int i) const { return p_[i]; }
  void merge(const Buf& o) {
    for (int i = 0; i < n_ && i < o.n_; ++i) p_[i] += o.p_[i];
  }

 private:
  int n_;
  long* p_;
};

// The private copy is sized after the original (omp_orig).
#pragma omp declare reduction(bufadd:Buf               \
                              : omp_out.merge(omp_in)) \
    initializer(omp_priv = Buf(omp_orig.size()))

using Cplx = std::complex<double>;
#pragma omp declare reduction(cadd:Cplx : omp_out += omp_in) initializer(omp_priv = Cplx(0, 0))
#pragma omp declare reduction(cmul:Cplx : omp_out *= omp_in) initializer(omp_priv = Cplx(1, 0))

using Vec = std::vector<long>;
inline void vec_merge(Vec& out, const Vec& in) {
  for (std::size_t k = 0; k < out.size(); ++k) out[k] += in[k];
}
#pragma omp declare reduction(vadd:Vec                      \
                              : vec_merge(omp_out, omp_in)) \
    initializer(omp_priv = Vec(omp_orig.size(), 0))

inline int value(int i) { return (i * 37) % 101 - 50; }  // repeats: ties

inline Stat expected(int n, int from = 0, int step = 1) {
  Stat s;
  for (int i = from; i < n; i += step) s.add(value(i), i);
  return s;
}

inline void print_buf(const char* what, const Buf& b) {
  std::printf("%s:", what);
  for (int k = 0; k < b.size(); ++k) std::printf(" %ld", b[k]);
  std::printf("\n");
}

inline void print_vec(const char* what, const Vec& v) {
  std::printf("%s:", what);
  for (long x : v) std::printf(" %ld", x);
  std::printf("\n");
}
