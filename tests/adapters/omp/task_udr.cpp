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

#include <cstdio>

#include "check.h"
#include "task_udr.hpp"

namespace {

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

// Undeferred (if(0)) in_reduction tasks, a taskloop reduction in a final
// task (its chunks are included tasks), a nogroup taskloop in_reduction
// and mergeable untied in_reduction tasks; then an orphaned taskgroup, no
// parallel region around it.
void task_kinds() {
  const long live = g_live;
  {
    Stat a, b, c, d;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup task_reduction(stat : a)
      for (int i = 0; i < kN; ++i) {
#pragma omp task in_reduction(stat : a) if (i % 2)
        a.add(value(i), i);
      }
#pragma omp task final(1)
      {
#pragma omp taskloop reduction(stat : b) grainsize(16)
        for (int i = 0; i < kN; ++i) b.add(value(i), i);
      }
#pragma omp taskwait
#pragma omp taskgroup task_reduction(stat : c)
      {
#pragma omp taskloop nogroup in_reduction(stat : c) grainsize(16)
        for (int i = 0; i < kN / 2; ++i) c.add(value(i), i);
        for (int i = kN / 2; i < kN; ++i) {
#pragma omp task in_reduction(stat : c) mergeable untied
          c.add(value(i), i);
        }
      }
    }
#pragma omp taskgroup task_reduction(stat : d)
    for (int i = 0; i < kN; ++i) {
#pragma omp task in_reduction(stat : d)
      d.add(value(i), i);
    }
    CHECK(a == expected(kN) && b == expected(kN) && c == expected(kN) && d == expected(kN));
    a.print("if(0) stat");
    b.print("final taskloop stat");
    c.print("nogroup, mergeable stat");
    d.print("orphaned stat");
  }
  CHECK(g_live == live);
  std::printf("task kinds: every Stat destroyed: %s\n", g_live == live ? "yes" : "no");
}

}  // namespace

int main(int argc, char**) {
  taskloops();
  taskgroups();
  team_reductions();
  sections_and_scope();
  nested_and_sections(argc + 3);  // 4, unknown to the compiler
  task_kinds();
  return finish("task_udr_cpp");
}
