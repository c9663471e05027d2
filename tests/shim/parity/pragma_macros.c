// Pragmas that come out of macros, as public OmpSs codes write them:
// _Pragma("oss ...") and _Pragma("omp ...") directly and through a
// stringizing DO_PRAGMA(x), and object-like macros whose expansion is a
// pragma line (Mercurium read preprocessed output, where that is a pragma).
// Valid C and C++.
// parity: tasks=4 taskwaits=3
#include <stdio.h>

#define DO_PRAGMA(x) _Pragma(#x)
#define TASK_INOUT(v) DO_PRAGMA(oss task inout(v) label(bump))
#define OSS_TASKWAIT _Pragma("oss taskwait")
#ifdef SEQUENTIAL_REFERENCE  // the stock compiler cannot expand a pragma line
#define OMP_TASKWAIT
#define OSS_TASK_IN_OUT
#else
#define OMP_TASKWAIT #pragma omp taskwait
#define OSS_TASK_IN_OUT #pragma oss task in(cell[0;8]) out(total)
#endif

enum { kCells = 8 };
static long cell[kCells];
static long total;

static void bump(long *c, int k) {
  for (int i = 0; i < 1000; ++i) *c += k;
}

int main(void) {
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < kCells; ++i) {
      TASK_INOUT(cell[i])
      bump(&cell[i], i + r);
    }
  OSS_TASKWAIT
  for (int i = 0; i < kCells; ++i) {
    _Pragma("omp task inout(cell[i])")
    cell[i] = cell[i] * 2 + i;
  }
  DO_PRAGMA(omp taskwait)
  OSS_TASK_IN_OUT
  {
    for (int i = 0; i < kCells; ++i) total += cell[i];
  }
  DO_PRAGMA(oss task inout(total))
  total += 1;
  OMP_TASKWAIT
  for (int i = 0; i < kCells; ++i) printf("cell[%d] = %ld\n", i, cell[i]);
  printf("total = %ld\n", total);
  return 0;
}
