// METG stencil (metg.hpp) on joule's C++ API: one spawn per point with
// out on its cell and in on its (up to three) inputs, one taskwait per run.
#include <joule/joule.hpp>

#include <span>

#include "metg_joule_main.hpp"

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

int main(int argc, char** argv) { return metg::joule_main(argc, argv, "joule", run); }
