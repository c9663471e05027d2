// C++ user-declared reductions through the task-reduction ABI: class types
// with constructors and destructors (GCC's code constructs each private
// copy on first use and destroys it after the fold), std::complex<double>,
// std::vector<long> and a vector-like class owning heap memory, in taskloop
// reduction, taskgroup task_reduction with in_reduction tasks, and
// parallel / for / sections / scope reduction(task, ...). The number of
// private copies is the runtime's choice (OpenMP 5.2 section 5.5.8), so
// only what it cannot change is printed: integer-valued results, and
// whether every constructed object was destroyed. The output must match
// libgomp's (compare_runs.sh).
#include <omp.h>

#include <atomic>
#include <complex>
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"

namespace {

constexpr int kN = 240;

std::atomic<long> g_live{0};  // constructed minus destroyed Stat objects

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
#pragma omp declare reduction(vadd:Vec                                                          \
                              : [](Vec & o, const Vec& i){for (size_t k = 0; k < o.size(); ++k) \
                                                              o[k] += i[k];}(omp_out, omp_in))  \
    initializer(omp_priv = Vec(omp_orig.size(), 0))

int value(int i) { return (i * 37) % 101 - 50; }  // repeats: ties

Stat expected(int n, int from = 0, int step = 1) {
  Stat s;
  for (int i = from; i < n; i += step) s.add(value(i), i);
  return s;
}

void print_buf(const char* what, const Buf& b) {
  std::printf("%s:", what);
  for (int k = 0; k < b.size(); ++k) std::printf(" %ld", b[k]);
  std::printf("\n");
}

void print_vec(const char* what, const Vec& v) {
  std::printf("%s:", what);
  for (long x : v) std::printf(" %ld", x);
  std::printf("\n");
}

void taskloops() {
  const long live = g_live;
  {
    Stat s;
    Buf b(5);
    Cplx c(0, 0), m(1, 0);
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop reduction(stat : s) reduction(bufadd : b) grainsize(9)
      for (int i = 0; i < kN; ++i) {
        s.add(value(i), i);
        b[i % 5] += i;
      }
#pragma omp taskloop reduction(cadd : c) reduction(cmul : m) num_tasks(7)
      for (int i = 0; i < 40; ++i) {
        c += Cplx(i, -2 * i);
        m *= (i % 8 == 0) ? Cplx(0, 1) : Cplx(1, 0);  // i^5 = i
      }
    }
    CHECK(s == expected(kN));
    CHECK(c == Cplx(780, -1560) && m == Cplx(0, 1));
    s.print("taskloop stat");
    print_buf("taskloop buf", b);
    std::printf("taskloop complex: (%g,%g) (%g,%g)\n", c.real(), c.imag(), m.real(), m.imag());
  }
  CHECK(g_live == live);
  std::printf("taskloop: every Stat destroyed: %s\n", g_live == live ? "yes" : "no");
}

void taskgroups() {
  const long live = g_live;
  {
    Stat s, arr[3];
    Vec v(4, 100);
    Cplx c(1, 1);
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(stat                                              \
                                     : s, arr) task_reduction(vadd                     \
                                                              : v) task_reduction(cadd \
                                                                                  : c)
    for (int i = 0; i < kN; ++i) {
#pragma omp task in_reduction(stat : s, arr) in_reduction(vadd : v) in_reduction(cadd : c)
      {
        s.add(value(i), i);
        arr[i % 3].add(value(i), i);
        v[i % 4] += i;
        c += Cplx(1, i % 2);
      }
    }
    CHECK(s == expected(kN));
    for (int k = 0; k < 3; ++k) CHECK(arr[k] == expected(kN, k, 3));
    CHECK(c == Cplx(kN + 1, kN / 2 + 1));
    s.print("taskgroup stat");
    for (const Stat& a : arr) a.print("taskgroup arr");
    print_vec("taskgroup vector", v);
    std::printf("taskgroup complex: (%g,%g)\n", c.real(), c.imag());
  }
  CHECK(g_live == live);
  std::printf("taskgroup: every Stat destroyed: %s\n", g_live == live ? "yes" : "no");
}

void team_reductions() {
  const long live = g_live;
  {
    Stat s, w;
    Buf b(3);
    int nt = 0;
#pragma omp parallel reduction(task, stat : s) reduction(task, bufadd : b)
    {
#pragma omp master
      nt = omp_get_num_threads();
      b[0] += 1;  // the implicit task's own copy
      for (int i = omp_get_thread_num(); i < kN; i += omp_get_num_threads()) {
#pragma omp task in_reduction(stat : s) in_reduction(bufadd : b)
        {
          s.add(value(i), i);
          b[1 + i % 2] += i;
        }
      }
    }
#pragma omp parallel
#pragma omp for reduction(task, stat : w) schedule(dynamic, 4)
    for (int i = 0; i < kN; ++i) {
#pragma omp task in_reduction(stat : w)
      w.add(value(i), i);
    }
    CHECK(s == expected(kN) && w == expected(kN));
    CHECK(nt > 0 && b[0] == nt);
    s.print("parallel stat");
    w.print("for stat");
    std::printf("parallel buf: per thread %ld, %ld %ld\n", nt ? b[0] / nt : -1, b[1], b[2]);
  }
  CHECK(g_live == live);
  std::printf("team: every Stat destroyed: %s\n", g_live == live ? "yes" : "no");
}

// sections and scope with reduction(task, ...) on a class type.
void sections_and_scope() {
  const long live = g_live;
  {
    Stat a, b;
    int nt = 0;
#pragma omp parallel
    {
#pragma omp single
      nt = omp_get_num_threads();
#pragma omp sections reduction(task, stat : a)
      {
#pragma omp section
        {
#pragma omp task in_reduction(stat : a)
          a.add(5, 1);
        }
#pragma omp section
        a.add(5, 0);
      }
#pragma omp scope reduction(task, stat : b)
      {
        b.add(1, omp_get_thread_num());
#pragma omp task in_reduction(stat : b)
        b.add(10, 0);
      }
    }
    CHECK(nt > 0 && a.count() == 2 && b.count() == 2L * nt);
    a.print("sections stat");
    std::printf("scope stat: per thread %ld\n", nt ? b.count() / nt : -1);
  }
  CHECK(g_live == live);
  std::printf("sections, scope: every Stat destroyed: %s\n", g_live == live ? "yes" : "no");
}

// An orphaned in_reduction task naming a reference parameter.
void add_by_ref(Stat& s, int i) {
#pragma omp task in_reduction(stat : s)
  s.add(value(i), i);
}

// in_reduction tasks inside in_reduction tasks (the inner one names the
// outer one's private copy; omp_orig is still the original vector), array
// sections of class type, one through a pointer with a run-time length, and
// a taskloop whose chunks create in_reduction tasks.
void nested_and_sections(int len) {
  const long live = g_live;
  {
    Stat arr[6], x;
    Stat* p = arr;
    Vec v(3, 0);
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup task_reduction(stat : arr [1:3], x) task_reduction(vadd : v)
      for (int i = 0; i < kN; ++i) {
#pragma omp task in_reduction(stat : arr [1:3], x) in_reduction(vadd : v)
        {
          arr[1 + i % 3].add(value(i), i);
          v[0] += 1;
#pragma omp task in_reduction(vadd : v)
          v[1] += i;
          add_by_ref(x, i);
        }
      }
#pragma omp taskgroup task_reduction(stat : p [2:len])
      for (int i = 0; i < kN; ++i) {
#pragma omp task in_reduction(stat : p [2:len])
        p[2 + i % len].add(1, 0);
      }
#pragma omp taskloop reduction(vadd : v) grainsize(13)
      for (int i = 0; i < kN; ++i) {
#pragma omp task in_reduction(vadd : v)
        v[2] += i;
      }
    }
    CHECK(x == expected(kN) && v[0] == kN && v[1] == kN * (kN - 1) / 2 && v[2] == v[1]);
    CHECK(arr[0] == Stat() && arr[5].count() == kN / len);
    for (const Stat& a : arr) a.print("sections arr");
    x.print("by reference");
    print_vec("nested vector", v);
  }
  CHECK(g_live == live);
  std::printf("nested: every Stat destroyed: %s\n", g_live == live ? "yes" : "no");
}

}  // namespace

int main(int argc, char**) {
  taskloops();
  taskgroups();
  team_reductions();
  sections_and_scope();
  nested_and_sections(argc + 3);  // 4, unknown to the compiler
  return finish("task_udr_cpp");
}
