// CPU masks for the graph policies (JOULE_ENERGY_MASKS=1): when the power
// model says fewer cores at a higher frequency cost less than more cores at
// a lower one for the parallelism of the window (energy::choose_core_mask),
// the surplus workers park; they come back as soon as work queues up. Not
// in iterative mode: keyed tasks pinned to a parked worker would wait.
#include <algorithm>

#include "affinity_map.hpp"
#include "controller.hpp"
#include "core_mask.hpp"
#include "platform.hpp"

namespace joule::control {
namespace {

constexpr int kShrinkWindows = 3;  // windows that must agree before parking

}  // namespace

// Returns the cores to keep (-1: leave the mask as it is).
int Controller::mask_target(const energy::Observation& obs) {
  if (!masks_ || !periodic_ || obs.domains.empty() || obs.window_s <= 0) return -1;
  if (run_.affinity && run_.affinity->pinned()) return -1;
  int active = 0, ready = 0;
  double work = 0;
  for (const auto& c : obs.cores) {
    active += c.parked ? 0 : 1;
    ready += c.ready;
    work += c.work_s;
  }
  const int n = int(obs.cores.size());
  const double parallelism = work / obs.window_s;
  // Parked cores cannot show demand as parallelism (a busy core may be a
  // chain that one core serves): work waiting in the queues brings them
  // back at once.
  if (active < n && ready > 0) {
    shrink_streak_ = 0;
    return n;
  }
  if (active < n) return -1;
  energy::MaskInput in;
  in.parallelism = parallelism;
  in.cores = n;
  in.pstates = obs.domains.front().pstates;
  in.busy_watts = obs.domains.front().busy_watts;
  in.idle_watts = obs.idle_watts;
  in.parked_watts = obs.idle_watts;
  in.time_budget = opt_.time_budget;
  const energy::MaskChoice choice = energy::choose_core_mask(in);
  mask_choice_why_ = choice.why;
  if (choice.cores >= n || ready > 0) {
    shrink_streak_ = 0;
    return -1;
  }
  if (++shrink_streak_ < kShrinkWindows) return -1;
  shrink_streak_ = 0;
  return std::max(1, choice.cores);
}

}  // namespace joule::control
