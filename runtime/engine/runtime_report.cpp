// The scheduler's part of JOULE_REPORT and the steal order of each worker.
#include <iomanip>

#include "runtime.hpp"

namespace joule::engine {

// Other workers, nearest first by the machine's topology; guests added
// later are reached through the random window (VictimOrder).
void Runtime::set_victims(int index) {
  const int cpu = worker(index)->cpu();
  std::vector<std::pair<int, int>> others;
  for (int i = 0; i < worker_count(); ++i)
    if (i != index) others.emplace_back(i, worker(i)->cpu());
  scheduler_->victims().set(index, topology_->victim_levels(cpu, others));
}

void Runtime::report_scheduler(std::ostream& os) const {
  queues::StealStats steals;
  std::uint64_t spin_ns = 0;
  std::uint64_t sleep_ns = 0;
  for (int i = 0; i < worker_count(); ++i) {
    steals += scheduler_->steal_stats(i);
    spin_ns += worker(i)->spin_ns();
    sleep_ns += worker(i)->sleep_ns();
  }
  const auto per = [](std::uint64_t a, std::uint64_t b) { return b ? double(a) / double(b) : 0.0; };
  os << std::fixed << std::setprecision(2) << "steals: " << steals.steals << " (tasks per steal "
     << per(steals.tasks, steals.steals) << ", probes per steal "
     << per(steals.probes, steals.steals) << ", attempts that found nothing " << steals.misses
     << "); distance:";
  for (int d = 0; d < queues::kStealDistances; ++d)
    os << " " << queues::steal_distance_name(queues::StealDistance(d)) << " "
       << steals.by_distance[std::size_t(d)];
  std::uint64_t folded = 0, completed = 0;
  for (int i = 0; i < worker_count(); ++i) {
    folded += worker(i)->folded();
    completed += worker(i)->completed();
  }
  os << "\nparent counts: " << folded << " of " << completed
     << " completions by workers folded into a sibling's update";
  const IdleStats idle = idle_->stats();
  os << "\nwake-ups: targeted " << idle.wakes_targeted << " (by pushes " << idle.wakes_by_push
     << "), broadcast " << idle.wakes_broadcast << ", spurious " << idle.spurious << ", late "
     << idle.late << "; futex: " << idle.sleeps << " waits, " << idle.futex_wakes
     << " wakes; idle workers: " << std::setprecision(3) << double(spin_ns) * 1e-9
     << " s spinning, " << double(sleep_ns) * 1e-9 << " s asleep\n";
  os.unsetf(std::ios::fixed);
  os << std::setprecision(6);
  report_numa(os);
}

// Per node: its workers, the tasks they ran, the tasks queued there for
// their data, and the memory on it (the node meant, on a synthetic
// topology). Program data interleaved counts an equal share on each node.
void Runtime::report_numa(std::ostream& os) const {
  const NumaMemory& mem = NumaMemory::instance();
  const auto mib = [](std::uint64_t b) { return double(b) / double(1 << 20); };
  os << "numa: " << nodes_.nodes() << " node(s)" << (topology_->synthetic() ? " (synthetic)" : "")
     << ", data-node preference " << (nodes_.active() ? "on" : "off") << "\n";
  os << std::fixed << std::setprecision(2);
  for (int node = 0; node < nodes_.nodes(); ++node) {
    std::uint64_t ran = 0;
    for (int w : nodes_.workers_on(node)) ran += worker(w)->completed();
    os << "  node " << node << ": workers " << nodes_.workers_on(node).size() << ", tasks run "
       << ran << ", queued for their data " << nodes_.placed(node) << ", program data "
       << mib(mem.bytes_on(node, MemoryUse::api)) << " MiB, worker state "
       << mib(mem.bytes_on(node, MemoryUse::worker_state)) << " MiB\n";
  }
  os.unsetf(std::ios::fixed);
  os << std::setprecision(6);
}

}  // namespace joule::engine
