/* OmpSs-1 idioms: pragmas guarded by the preprocessor, shaping on array
   parameters, the atomic forms, _OPENMP with <omp.h>. */
#include <omp.h>
#define B 4
#define N 8

#ifdef _OMPSS
#pragma omp task inout([B]k_block)
#endif
void lu0(int kk, double k_block[B][N]);

static long nn;
static double total;
static long double wide;

void lu0(int kk, double k_block[B][N]) { k_block[0][kk] += 1; }

long cells(int d) {
  if (d > 0) {
#pragma omp atomic
    nn += cells(d - 1);
  }
  return 1;
}

int run(double a[B][N]) {
  int v, w = 0;
  double r;
  lu0(0, a);
#if defined(_OPENMP)
#pragma omp task untied mergeable final(1) if(w == 0) priority(2) label(step)
#else
  /* sequential */
#endif
  {
#pragma omp atomic
    total = total + 0.5;
  }
#pragma omp atomic update
  wide *= 2;
#pragma omp atomic capture
  v = nn++;
#pragma omp atomic capture
  {
    w = nn;
    nn -= 2;
  }
#pragma omp atomic read
  r = total;
#pragma omp atomic write
  total = r * 2;
#pragma omp taskwait noflush
  return v + w + omp_get_num_threads();
}
