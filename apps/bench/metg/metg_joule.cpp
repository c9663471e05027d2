// METG stencil (metg.hpp) on joule's C++ API: one spawn per point with
// out on its cell and in on its (up to three) inputs, one taskwait per run.
#include <joule/joule.hpp>

#include <cstdio>
#include <span>
#include <string>

#include "metg.hpp"

namespace {

void run(metg::Grid& grid, long iters, int) {
  metg::Grid* g = &grid;
  metg::for_each_point(grid, [&](int gi, int t, int x, int lo, int hi) {
    joule::dep deps[4] = {joule::out(g->at(gi, t, x))};
    std::size_t n = 1;
    for (int k = lo; t > 0 && k <= hi; ++k) deps[n++] = joule::in(g->at(gi, t - 1, k));
    joule::spawn(std::span<const joule::dep>(deps, n),
                 [g, gi, t, x, iters] { g->compute(gi, t, x, iters); });
  });
  joule::taskwait();
}

}  // namespace

int main(int argc, char** argv) {
  const metg::Options o = metg::parse(argc, argv);
  joule::runtime rt({{"JOULE_WORKERS", std::to_string(o.workers)}});
  if (joule::num_workers() != o.workers) {
    std::fprintf(stderr, "metg_joule: joule started %d workers, not %d\n", joule::num_workers(),
                 o.workers);
    return 1;
  }
  return metg::sweep("joule", o, run);
}
