// btmz on OpenMP loops, as NPB's BT-MZ is written: zones of the rank one
// after another, each phase an `omp parallel for` over the zone's rows. Built
// with the system compiler's -fopenmp (libgomp); the same binary runs on
// joule with LD_PRELOAD=libjoule-omp.so.
#include <omp.h>

#include "driver.hpp"

namespace {

void start(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
}
void stop() {}
int threads() { return omp_get_max_threads(); }

void step(std::vector<btmz::ZoneField*>& zones, const btmz::Numerics& num) {
  for (btmz::ZoneField* z : zones) {
    for (btmz::Phase p : btmz::kPhases) {
      const long rows = z->rows(p);
#pragma omp parallel for schedule(static)
      for (long r = 0; r < rows; ++r) z->run(p, r, r + 1, num);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const btmz::Backend backend{"OpenMP loops", start, stop, threads, step};
  return btmz::run_btmz(argc, argv, backend);
}
