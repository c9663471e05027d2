// The worker count and oversubscription (cpu_budget.hpp).
#include "cpu_budget.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "choices.hpp"
#include "config.hpp"

namespace joule::engine {
namespace {

const char* why_workers(const CpuBudget& b) {
  if (b.workers_set) return "JOULE_WORKERS";
  return b.runnable_cpus() < std::max(b.mask_cpus, 1) ? "the CPU quota rounded up" : "one per CPU";
}

}  // namespace

int CpuBudget::runnable_cpus() const noexcept {
  if (!quota) return std::max(mask_cpus, 1);
  // A quota of 16 read as 15.999999... is still 16 CPUs.
  const int quota_cpus = int(std::ceil(quota->cpus - 1e-9));
  return std::max(std::min(mask_cpus, quota_cpus), 1);
}

std::string CpuBudget::describe() const {
  std::string out = std::to_string(mask_cpus) + " CPU(s) in the mask, ";
  out += quota ? "CPU quota " + core::format_double(quota->cpus) + " (" + quota->file + ")"
               : std::string("no CPU quota");
  out += "; " + std::to_string(workers) + " worker(s) (";
  out += why_workers(*this);
  out += oversubscribed ? "), oversubscribed" : "), not oversubscribed";
  if (mode != Oversubscription::automatic)
    out += std::string(" (JOULE_OVERSUBSCRIBED=") +
           core::choice_name(core::Choices<Oversubscription>(kOversubscription), mode) + ")";
  return out;
}

// TAMPI's spin locks serve waiters in ticket order and spin without
// yielding: each thread is assumed to have a CPU, as a Nanos6 worker has
// (one per CPU of the mask). With more seats than CPUs the next ticket's
// thread waits for the OS to schedule it while the others spin out their
// time slices (docs/records/2026-12-02-tampi-2.md).
std::string CpuBudget::seat_sharing_note() const {
  const int cpus = runnable_cpus();
  if (workers <= cpus) return {};
  return "joule: " + std::to_string(workers) + " workers share " + std::to_string(cpus) +
         " runnable CPU(s) and a task-aware layer is present: a layer that spins (TAMPI's "
         "queue locks) waits for the OS to schedule each lock's next holder and can run "
         "100 times slower; use JOULE_WORKERS=" +
         std::to_string(cpus) + " or a wider affinity mask (mpirun --bind-to none)\n";
}

CpuBudget plan_cpu_budget(const EngineSettings& s, int mask_cpus,
                          std::optional<core::CpuQuota> quota) {
  CpuBudget b;
  b.mask_cpus = mask_cpus;
  b.quota = std::move(quota);
  b.workers_set = s.workers > 0;
  b.workers = b.workers_set ? s.workers : b.runnable_cpus();
  b.mode = s.oversubscribed;
  switch (s.oversubscribed) {
    case Oversubscription::yes:
      b.oversubscribed = true;
      break;
    case Oversubscription::no:
      b.oversubscribed = false;
      break;
    case Oversubscription::automatic:
      b.oversubscribed = b.workers > b.runnable_cpus();
      break;
  }
  return b;
}

CpuBudget read_cpu_budget(const EngineSettings& s, int mask_cpus) {
  return plan_cpu_budget(s, mask_cpus, core::read_cpu_quota(s.cgroup_root));
}

}  // namespace joule::engine
