// btmz on joule tasks (the MPI + OmpSs structure of the DLB thesis's BT-MZ):
// every zone of the rank is a task, so zones proceed concurrently, and each
// phase inside a zone is a taskloop over its rows. Linked with libjoule-mpi,
// a rank waiting in the exchange lends its CPUs (JOULE_LENDING=node).
#include <joule/joule.hpp>

#include <memory>
#include <string>

#include "driver.hpp"

namespace {

std::unique_ptr<joule::runtime> runtime;

void start(int threads) {
  if (threads > 0)
    runtime.reset(new joule::runtime({{"JOULE_WORKERS", std::to_string(threads)}}));
  else
    runtime = std::make_unique<joule::runtime>();
}

void stop() { runtime.reset(); }
int threads() { return joule::num_workers(); }

void step(std::vector<btmz::ZoneField*>& zones, const btmz::Numerics& num) {
  for (btmz::ZoneField* z : zones) {
    joule::task_options opts;
    opts.label = "btmz zone";
    opts.affinity = std::uint64_t(z->zone().id);  // the energy policy balances zones by key
    joule::spawn(
        [z, &num] {
          for (btmz::Phase p : btmz::kPhases)
            joule::taskloop(0L, z->rows(p), 0L, [&](long lo, long hi) { z->run(p, lo, hi, num); });
        },
        opts);
  }
  joule::taskwait();
  joule::iteration_boundary();
}

}  // namespace

int main(int argc, char** argv) {
  const btmz::Backend backend{"joule tasks", start, stop, threads, step};
  return btmz::run_btmz(argc, argv, backend);
}
