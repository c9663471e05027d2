// The ready queues' section of JOULE_REPORT (== queues ==): steals, parent
// counts, wake-ups, idle time; then the NUMA placement room's lines.
#include <iomanip>

#include "runtime.hpp"

namespace joule::engine {

void Runtime::report_queues(std::ostream& os) const {
  queues::StealStats steals;
  std::uint64_t spin_ns = 0;
  std::uint64_t sleep_ns = 0;
  for (int i = 0; i < workers_.count(); ++i) {
    steals += scheduler_->steal_stats(i);
    spin_ns += workers_.worker(i)->spin_ns();
    sleep_ns += workers_.worker(i)->sleep_ns();
  }
  const auto per = [](std::uint64_t a, std::uint64_t b) { return b ? double(a) / double(b) : 0.0; };
  os << "== queues ==\n"
     << std::fixed << std::setprecision(2) << "steals: " << steals.steals << " (tasks per steal "
     << per(steals.tasks, steals.steals) << ", probes per steal "
     << per(steals.probes, steals.steals) << ", attempts that found nothing " << steals.misses
     << "); distance:";
  for (int d = 0; d < queues::kStealDistances; ++d)
    os << " " << queues::steal_distance_name(queues::StealDistance(d)) << " "
       << steals.by_distance[std::size_t(d)];
  std::uint64_t folded = 0, completed = 0;
  for (int i = 0; i < workers_.count(); ++i) {
    folded += workers_.worker(i)->folded();
    completed += workers_.worker(i)->completed();
  }
  os << "\nparent counts: " << folded << " of " << completed
     << " completions by workers folded into a sibling's update";
  const IdleStats idle = idle_->stats();
  os << "\nwake-ups: targeted " << idle.wakes_targeted << " (by pushes " << idle.wakes_by_push
     << "), broadcast " << idle.wakes_broadcast << ", spurious " << idle.spurious << ", late "
     << idle.late << "; futex: " << idle.sleeps << " waits, " << idle.futex_wakes
     << " wakes; idle workers: " << std::setprecision(3) << double(spin_ns) * 1e-9
     << " s spinning, " << double(sleep_ns) * 1e-9 << " s asleep\n";
  // Blocked tasks and waits that yield (JOULE_TASKWAIT) hand CPUs to spares.
  const Spares& spares = workers_.spares();
  if (spares.handovers() > 0)
    os << "spare threads: " << spares.handovers()
       << " CPU hand-overs (blocked tasks, waits that yield)\n";
  os.unsetf(std::ios::fixed);
  os << std::setprecision(6);
  numa_.report(os);
}

}  // namespace joule::engine
