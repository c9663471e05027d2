/* Every task clause form (OmpSs-2 and OmpSs-1 spellings). */
#include <stddef.h>

struct node {
  int value;
  struct node *next;
};

int global_counter;

void clauses(int n, double *v, struct node *p) {
  int x = 0, y = 1, z = 2, w = 3;
  double acc = 0;
#pragma oss task in(x) out(y) inout(z) label(plain_kinds)
  y = x + z++;
#pragma omp task input(x) output(y) concurrent(acc) commutative(w)
  w += x + y;
#pragma oss task weakin(x) weakout(y) weakinout(z) weakcommutative(w)
  z = x + y + w;
#pragma oss task reduction(+: acc) reduction(max: w) firstprivate(n) label("reduce")
  acc += n;
#pragma omp task depend(in: v[0:n]) depend(out: y) depend(inoutset: acc) depend(mutexinoutset: w)
  y = (int)v[0] + w;
#pragma oss task priority(n + 1) final(n > 100) if(n > 1) cost(2.5 * n) inout(global_counter)
  global_counter += n;
#pragma oss task private(x) shared(y) firstprivate(z) default(shared)
  {
    x = z;
    y += x;
  }
#pragma oss task device(smp) copy_in(v[0;n]) copy_out(x) copy_inout(p->value) copy_deps in(*p)
  x = p->value;
#pragma omp target device(smp) copy_deps
#pragma omp task inout(v[0;n]) untied
  v[0] = 1;
#pragma oss task wait
  global_counter++;
#pragma oss taskwait
}
