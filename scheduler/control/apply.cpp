// The energy controller's two ends: the Observation it builds from the
// platform's per-worker accounting, and applying a policy's Decision.
#include <algorithm>
#include <cmath>
#include <map>
#include <thread>

#include "affinity_map.hpp"
#include "controller.hpp"
#include "platform.hpp"
#include "trace_api.hpp"
#include "worker_slot.hpp"

namespace joule::control {

using platform::Dvfs;
using platform::WorkerSlot;

namespace {

double delta_s(const std::atomic<std::uint64_t>& now, std::uint64_t& seen) {
  const std::uint64_t v = now.load(std::memory_order_relaxed);
  const std::uint64_t d = v > seen ? v - seen : 0;
  seen = v;
  return double(d) * 1e-9;
}

}  // namespace

// The parts of the Observation that do not change during a run (domains'
// cores, P-state tables and their modelled power, chips), built once at
// begin: a decision then touches each worker and domain once, with no
// allocation (docs/performance.md, "Node-scale decisions").
void Controller::build_observation() {
  obs_ = energy::Observation{};
  Dvfs& d = p_.dvfs();
  obs_.domains.resize(domain_cpu_.size());
  for (int w = 0; w < int(core_domain_.size()); ++w)
    obs_.domains[std::size_t(core_domain_[std::size_t(w)])].cores.push_back(w);
  for (std::size_t i = 0; i < domain_cpu_.size(); ++i) {
    energy::DomainView& v = obs_.domains[i];
    v.pstates = d.pstates(domain_cpu_[i]);
    for (std::uint32_t khz : v.pstates) v.busy_watts.push_back(p_.model().busy_watts(khz));
    v.chip = p_.chip_of(domain_cpu_[i]);
  }
  obs_.chips.resize(std::size_t(std::max(0, p_.num_chips())));
  for (auto& c : obs_.chips) c.uncore_watts = p_.model().uncore_watts();
  obs_.cores.resize(core_domain_.size());
  for (std::size_t w = 0; w < core_domain_.size(); ++w) {
    obs_.cores[w].domain = core_domain_[w];
    obs_.cores[w].chip = p_.slot(int(w)).chip;
  }
}

// Everything since the last call: the window the loads cover. The claim
// holder's own Observation, refreshed in place.
const energy::Observation& Controller::observe(std::uint64_t now) {
  energy::Observation& obs = obs_;
  obs.now_ns = now;
  obs.window_s = double(now > last_ns_ ? now - last_ns_ : 0) * 1e-9;
  last_ns_ = now;
  obs.iteration = iteration_;
  obs.idle_watts = p_.model().idle_watts();
  obs.switch_cost_s = switch_cost_s_;
  Dvfs& d = p_.dvfs();
  for (std::size_t i = 0; i < domain_cpu_.size(); ++i)
    obs.domains[i].level = std::max(0, d.level(domain_cpu_[i]));
  const std::vector<double> temps = p_.last_temperatures();
  for (std::size_t c = 0; c < obs.chips.size() && c < temps.size(); ++c)
    obs.chips[c].temperature_c = temps[c];
  for (int w = 0; w < p_.num_workers() && std::size_t(w) < obs.cores.size(); ++w) {
    WorkerSlot& s = p_.slot(w);
    CoreSeen& seen = seen_[std::size_t(w)];
    energy::CoreView& c = obs.cores[std::size_t(w)];
    c.busy_s = delta_s(s.busy_ns, seen.busy);
    c.stretch_s = delta_s(s.stretch_ns, seen.stretch);
    c.work_s = delta_s(s.work_ns, seen.work);
    c.idle_s = std::max(0.0, obs.window_s - c.busy_s);
    c.ready = run_.ready_of ? run_.ready_of(w) : 0;
    c.running = s.in_task.load(std::memory_order_relaxed);
    // Sticky over the window: a core that ran critical-path tasks in it
    // keeps them fast even if the decision falls between two of them.
    c.running_critical = s.critical_seen.exchange(false, std::memory_order_relaxed) ||
                         (c.running && s.critical.load(std::memory_order_relaxed));
    c.parked = parked_[std::size_t(w)];
  }
  obs.keys.clear();
  add_keys(obs);
  return obs;
}

// Keys with work in the window, each on the worker it is mapped to (pinned
// in iterative mode, so that is where its tasks ran).
void Controller::add_keys(energy::Observation& obs) {
  std::map<std::uint64_t, std::uint64_t> work;
  for (int w = 0; w < p_.num_workers(); ++w) {
    WorkerSlot& slot = p_.slot(w);
    std::unordered_map<std::uint64_t, std::uint64_t> taken;
    slot.keys_lock.lock();
    taken.swap(slot.key_work_ns);
    slot.keys_lock.unlock();
    for (const auto& [k, ns] : taken) work[k] += ns;
  }
  for (const auto& [k, ns] : work) obs.keys.push_back({k, worker_of_key(k), double(ns) * 1e-9});
}

int Controller::worker_of_key(std::uint64_t key) const {
  const int w = run_.affinity ? run_.affinity->worker_of(key) : -1;
  const int n = std::max(1, p_.num_workers());
  if (w >= 0 && w < n) return w;
  return run_.affinity ? run_.affinity->spread(key, n) : int(key % std::uint64_t(n));
}

void Controller::apply(const energy::Decision& d) {
  bool any = false;
  if (publish_levels(d.domain_level)) ++dvfs_, any = true;
  if (apply_moves(d.moves)) ++balance_, any = true;
  if (d.active_cores >= 0 && apply_mask(d.active_cores)) {
    ++mask_, any = true;
    mask_why_ = "kept " + std::to_string(d.active_cores) + " core(s): " + d.why;
  }
  if (!any) return;
  last_why_ = d.why;
  core::trace::emit_event(core::trace::Event::kEvEnergyDecision, std::uint64_t(d.kind));
}

// Publishes the decision's level per domain; owners apply it at their next
// task boundary (at_boundary), apply_pending covers the rest.
bool Controller::publish_levels(const std::vector<int>& levels) {
  if (levels.size() != domain_cpu_.size() || !slots_) return false;
  const std::uint64_t n = decisions_.load(std::memory_order_relaxed);
  bool changed = false;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    DomainSlot& s = slots_[i];
    if (levels[i] == s.target.load(std::memory_order_relaxed)) continue;
    s.published = n;
    s.target.store(levels[i], std::memory_order_release);
    changed = true;
  }
  return changed;
}

// One domain's published level, by whoever gets here first (the owner at a
// task boundary, or the deciding thread); the other skips it.
void Controller::apply_domain(int d, bool owner) {
  DomainSlot& s = slots_[std::size_t(d)];
  if (s.applying.exchange(true, std::memory_order_acquire)) return;
  for (;;) {
    const int target = s.target.load(std::memory_order_acquire);
    if (target < 0 || target == s.applied.load(std::memory_order_relaxed)) break;
    const std::uint64_t t0 = core::now_ns();
    p_.dvfs().set_level(domain_cpu_[std::size_t(d)], target);
    apply_ns_.fetch_add(core::now_ns() - t0, std::memory_order_relaxed);
    applies_.fetch_add(1, std::memory_order_relaxed);
    if (owner) applies_by_owner_.fetch_add(1, std::memory_order_relaxed);
    s.applied.store(target, std::memory_order_release);
  }
  s.applying.store(false, std::memory_order_release);
}

// The deciding thread's share (all: every domain, at stop): domains nobody
// owns, owners asleep (no task boundary soon) or parked, and levels an owner
// has left pending since an earlier decision.
void Controller::apply_pending(bool all) {
  if (!slots_) return;
  const std::uint64_t n = decisions_.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < domain_cpu_.size(); ++i) {
    DomainSlot& s = slots_[i];
    if (s.target.load(std::memory_order_relaxed) == s.applied.load(std::memory_order_relaxed))
      continue;
    bool mine = all || s.owner < 0 || s.published < n;
    if (!mine) {
      const WorkerSlot& w = p_.slot(s.owner);
      mine = w.sleeping.load(std::memory_order_relaxed) || parked_[std::size_t(s.owner)];
    }
    if (!mine) continue;
    if (all)  // at stop nothing else applies: wait out a worker still at it
      while (s.applying.load(std::memory_order_acquire)) std::this_thread::yield();
    apply_domain(int(i));
  }
}

bool Controller::apply_moves(const std::vector<std::pair<std::uint64_t, int>>& moves) {
  if (!run_.affinity) return false;
  bool changed = false;
  for (const auto& [key, w] : moves) {
    if (w < 0 || w >= p_.num_workers() || parked_[std::size_t(w)]) continue;
    if (worker_of_key(key) == w) continue;
    if (!run_.affinity->set(key, w)) continue;
    ++moved_keys_;
    changed = true;
    core::trace::emit_event(core::trace::Event::kEvAffinityKey, key);
    core::trace::emit_event(core::trace::Event::kEvAffinityWorker, std::uint64_t(w) + 1);
  }
  return changed;
}

// Keeps workers [0, active) and parks the others at their next task
// boundary. Not while keyed tasks are pinned: a parked worker's pinned
// tasks would wait for it.
bool Controller::apply_mask(int active) {
  const int n = p_.num_workers();
  active = std::clamp(active, 1, n);
  if (!masks_ || !run_.park_worker || n < 2) return false;
  if (run_.affinity && run_.affinity->pinned()) {
    mask_why_ = "not applied: keyed tasks are pinned (iterative mode)";
    return false;
  }
  bool changed = false;
  for (int w = 1; w < n; ++w) {
    const bool park = w >= active;
    if (parked_[std::size_t(w)] == park) continue;
    parked_[std::size_t(w)] = park;
    run_.park_worker(w, park);
    changed = true;
  }
  if (!changed) return false;
  min_cores_ = min_cores_ < 0 ? active : std::min(min_cores_, active);
  core::trace::emit_event(core::trace::Event::kEvEnergyCores, std::uint64_t(active));
  return true;
}

}  // namespace joule::control
