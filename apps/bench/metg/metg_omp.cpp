// METG stencil (metg.hpp) as OpenMP depend tasks: one task per point created
// by one thread of a parallel region, in on its inputs and out on its cell.
// Compiled by g++ (libgomp; libjoule-omp by LD_PRELOAD) and by clang++
// (libomp; libjoule-omp by LD_PRELOAD, docs/openmp-llvm-abi.md). The three
// task forms are the three input counts, so no dependency is listed twice.
#include <omp.h>

#include <cstdio>

#include "metg.hpp"

namespace {

void spawn_point(metg::Grid* g, int gi, int t, int x, int lo, int hi, long iters) {
  metg::Cell* self = &g->at(gi, t, x);
  if (t == 0) {
#pragma omp task depend(out : *self) firstprivate(g, gi, t, x, iters)
    g->compute(gi, t, x, iters);
    return;
  }
  metg::Cell* a = &g->at(gi, t - 1, lo);
  metg::Cell* b = &g->at(gi, t - 1, hi);
  if (lo == hi) {
#pragma omp task depend(in : *a) depend(out : *self) firstprivate(g, gi, t, x, iters)
    g->compute(gi, t, x, iters);
  } else if (hi - lo == 1) {
#pragma omp task depend(in : *a, *b) depend(out : *self) firstprivate(g, gi, t, x, iters)
    g->compute(gi, t, x, iters);
  } else {
    metg::Cell* c = &g->at(gi, t - 1, x);
#pragma omp task depend(in : *a, *b, *c) depend(out : *self) firstprivate(g, gi, t, x, iters)
    g->compute(gi, t, x, iters);
  }
}

void run(metg::Grid& grid, long iters, int workers) {
  metg::Grid* g = &grid;
#pragma omp parallel num_threads(workers)
#pragma omp single
  for (int t = 0; t < g->steps(); ++t)
    for (int gi = 0; gi < g->graphs(); ++gi)
      for (int x = 0; x < g->width(); ++x)
        spawn_point(g, gi, t, x, x > 0 ? x - 1 : 0, x + 1 < g->width() ? x + 1 : x, iters);
}

}  // namespace

int main(int argc, char** argv) {
  const metg::Options o = metg::parse(argc, argv);
  int team = 0;
#pragma omp parallel num_threads(o.workers)
#pragma omp single
  team = omp_get_num_threads();
  if (team != o.workers) {
    std::fprintf(stderr, "metg_omp: a team of %d threads, not %d\n", team, o.workers);
    return 1;
  }
#if defined(__clang__)
  return metg::sweep("openmp-clang", o, run);
#else
  return metg::sweep("openmp-gcc", o, run);
#endif
}
