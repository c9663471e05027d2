// METG stencil (metg.hpp) in OmpSs-2 pragmas, translated by joulecc
// (joule_ompss_sources): one task per point, in on its inputs and out on its
// cell, one taskwait per run. The three pragma forms are the three input
// counts (width 1, an edge, the interior): a dependency is never listed twice.
#include <joule/joule.hpp>

#include "metg_joule_main.hpp"

namespace {

void spawn_point(metg::Grid* g, int gi, int t, int x, int lo, int hi, long iters) {
  metg::Cell* self = &g->at(gi, t, x);
  if (t == 0) {
#pragma oss task out(*self)
    g->compute(gi, t, x, iters);
    return;
  }
  metg::Cell* a = &g->at(gi, t - 1, lo);
  metg::Cell* b = &g->at(gi, t - 1, hi);
  if (lo == hi) {
#pragma oss task in(*a)out(*self)
    g->compute(gi, t, x, iters);
  } else if (hi - lo == 1) {
#pragma oss task in(*a, *b)out(*self)
    g->compute(gi, t, x, iters);
  } else {
    metg::Cell* c = &g->at(gi, t - 1, x);
#pragma oss task in(*a, *b, *c)out(*self)
    g->compute(gi, t, x, iters);
  }
}

void run(metg::Grid& grid, long iters, int) {
  metg::Grid* g = &grid;
  for (int t = 0; t < g->steps(); ++t)
    for (int gi = 0; gi < g->graphs(); ++gi)
      for (int x = 0; x < g->width(); ++x)
        spawn_point(g, gi, t, x, x > 0 ? x - 1 : 0, x + 1 < g->width() ? x + 1 : x, iters);
#pragma oss taskwait
}

}  // namespace

int main(int argc, char** argv) { return metg::joule_main(argc, argv, "joulecc", run); }
