/* The program the OMPT tests run under ompt_tool.c (ompt.cmake), built by
 * GCC (the GOMP ABI) and by clang (the LLVM ABI). Its counts of regions,
 * tasks, dependences, taskwaits and taskgroups do not depend on the team
 * size: 2 regions; 8 producer and 8 consumer tasks (24 dependences), 6
 * tasks in a taskgroup, 1 if(0) task, 4 tasks each with a child and a
 * taskwait (31 tasks, 6 taskwaits); plus loops, sections, a critical
 * section, a lock, a barrier and a masked region. It checks its own results. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int a = 0, b = 0, c = 0, in_critical = 0, in_lock = 0, parents = 0, children = 0, looped = 0;
  int marks[12] = {0};
  omp_lock_t lock;
  omp_init_lock(&lock);
#pragma omp parallel shared(a, b, c, in_critical, in_lock, looped, marks)
  {
#pragma omp single
    {
      for (int i = 1; i <= 8; ++i) {
#pragma omp task depend(out : a) shared(a) firstprivate(i)
        a = i;
#pragma omp task depend(in : a) depend(inout : b) shared(a, b)
        b += a;
      }
#pragma omp taskwait
#pragma omp taskgroup
      {
        for (int i = 0; i < 6; ++i) {
#pragma omp task shared(c)
          {
#pragma omp atomic
            c += 1;
          }
        }
      }
#pragma omp task if (0) shared(c)
      c += 100;
    }
#pragma omp for schedule(dynamic, 3) reduction(+ : looped)
    for (int i = 0; i < 100; ++i) looped += i;
#pragma omp for schedule(static) nowait
    for (int i = 0; i < 10; ++i) marks[i] = i;
#pragma omp sections
    {
#pragma omp section
      marks[10] = 10;
#pragma omp section
      marks[11] = 11;
    }
#pragma omp critical
    in_critical += 1;
#pragma omp barrier
    omp_set_lock(&lock);
    in_lock += 1;
    omp_unset_lock(&lock);
  }
#pragma omp parallel shared(parents, children)
  {
#pragma omp masked
    {
      for (int i = 0; i < 4; ++i) {
#pragma omp task shared(parents, children)
        {
#pragma omp task shared(children)
          {
#pragma omp atomic
            children += 1;
          }
#pragma omp taskwait
#pragma omp atomic
          parents += 1;
        }
      }
#pragma omp taskwait
    }
  }
  omp_destroy_lock(&lock);
  const int ok =
      a == 8 && b == 36 && c == 106 && in_critical == in_lock && parents == 4 && children == 4;
  printf("ompt_program: %s\n", ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
