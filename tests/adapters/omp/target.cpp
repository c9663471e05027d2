// Target constructs from C++ on a node without an offload device: device
// buffers kept by a class (enter data in the constructor, exit data in the
// destructor), templates, array sections of std::vector storage, blocked
// target nowait tasks with dependences, a target region in a task. Every
// printed value is one a conforming runtime cannot change (compared with
// libgomp's by gomp_target_cpp_vs_libgomp); the checks make it
// self-checking on libjoule-omp alone.
#include <omp.h>

#include <cstdio>
#include <vector>

#include "check.h"

namespace {

constexpr std::size_t kN = 256;
constexpr std::size_t kBlock = 32;

// Storage mapped for as long as the object lives.
template <class T>
class DeviceVector {
 public:
  DeviceVector(std::size_t n, T value) : host_(n, value), p_(host_.data()), n_(n) {
    T* p = p_;
#pragma omp target enter data map(to : p [0:n])
  }
  ~DeviceVector() {
    T* p = p_;
    std::size_t n = n_;
#pragma omp target exit data map(release : p [0:n])
  }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;

  T* data() { return p_; }
  std::size_t size() const { return n_; }
  const std::vector<T>& pull() {
    T* p = p_;
    std::size_t n = n_;
#pragma omp target update from(p [0:n])
    return host_;
  }

 private:
  std::vector<T> host_;
  T* p_;
  std::size_t n_;
};

template <class T>
void axpy(T a, DeviceVector<T>& x, DeviceVector<T>& y) {
  T* xp = x.data();
  T* yp = y.data();
  const std::size_t n = x.size();
#pragma omp target parallel for map(to : xp [0:n]) map(tofrom : yp [0:n]) firstprivate(a)
  for (std::size_t i = 0; i < n; ++i) yp[i] += a * xp[i];
}

template <class T>
T dot(DeviceVector<T>& x, DeviceVector<T>& y) {
  T* xp = x.data();
  T* yp = y.data();
  const std::size_t n = x.size();
  T s = 0;
#pragma omp target parallel for reduction(+ : s) map(to : xp [0:n], yp [0:n]) map(tofrom : s)
  for (std::size_t i = 0; i < n; ++i) s += xp[i] * yp[i];
  return s;
}

struct Particle {
  double x, v;
};

// Blocks of particles as target nowait tasks: a step per block depends on
// the block's previous step only; the sum waits for every block.
double blocked_steps(std::vector<Particle>& ps, int steps) {
  Particle* p = ps.data();
  for (int s = 0; s < steps; ++s)
    for (std::size_t b = 0; b < kN; b += kBlock) {
#pragma omp target nowait depend(inout : p[b]) map(tofrom : p [b:kBlock]) firstprivate(s, b)
      for (std::size_t i = b; i < b + kBlock; ++i) {
        p[i].v += 0.5 * double(s + 1);
        p[i].x += p[i].v;
      }
    }
  double total = 0;
#pragma omp taskwait
  for (const Particle& q : ps) total += q.x;
  return total;
}

template <class T>
T square(T v) {
  return v * v;
}

// A template called in a target region, the region in a task. (g++ 12
// stops with an internal error on a lambda in or around a target region.)
long square_sum(long base) {
  long r = 0;
#pragma omp target map(tofrom : r) firstprivate(base)
  for (long i = 0; i < 10; ++i) r += square(base + i) + omp_get_level();
  return r;
}

long region_in_task() {
  long out = 0;
#pragma omp parallel
#pragma omp single
#pragma omp task shared(out)
  out = square_sum(3);
  return out;
}

}  // namespace

int main() {
  double s1 = 0, s2 = 0;
  {
    DeviceVector<double> x(kN, 2.0), y(kN, 1.0);
    axpy(0.5, x, y);
    s1 = dot(x, y);
    const std::vector<double>& back = y.pull();
    for (double v : back) s2 += v;
  }
  std::vector<Particle> ps(kN);
  for (std::size_t i = 0; i < kN; ++i) ps[i] = {double(i), 0.0};
  double moved = 0;
#pragma omp parallel
#pragma omp single
  moved = blocked_steps(ps, 4);
  const long lam = region_in_task();
  std::printf("axpy and dot: %.1f %.1f\n", s1, s2);
  std::printf("blocked nowait steps: %.1f\n", moved);
  std::printf("region in a task: %ld\n", lam);
  CHECK(s1 == 2.0 * 2.0 * kN && s2 == 2.0 * kN);
  CHECK(moved == double(kN) * (kN - 1) / 2 + kN * (0.5 + 1.5 + 3.0 + 5.0));
  CHECK(lam == 3 * 3 * 10 + 2 * 3 * 45 + 285);
  return finish("target_cpp");
}
