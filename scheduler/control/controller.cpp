// The energy controller's life cycle: which policy runs, when it decides,
// and putting the machine back at stop. Observing and applying are in
// apply.cpp, CPU masks in mask.cpp, mpi-slack in mpi_slack_driver.cpp
// and the report section in report.cpp.
#include "controller.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "affinity_map.hpp"
#include "config.hpp"
#include "energy_config.hpp"
#include "joule/types.h"
#include "log.hpp"
#include "mpi_slack_driver.hpp"
#include "platform.hpp"
#include "trace_api.hpp"
#include "worker_slot.hpp"

namespace joule::control {

using platform::Dvfs;
using platform::kCapPerChip;
using platform::Platform;
using platform::WorkerSlot;

Controller::Controller(Platform& p, const core::Config& cfg) : p_(p) { choose(cfg); }

Controller::~Controller() = default;

// JOULE_ENERGY_POLICY other than none / auto needs a DVFS backend that sets
// frequencies: without one it warns once and runs as none. "auto" starts
// with the graph policy and switches to the iterative one (once) at the
// first iteration boundary after keyed tasks ran.
void Controller::choose(const core::Config& cfg) {
  asked_ = cfg.get<energy::EnergySettings>().policy;
  opt_ = energy::options_from_config(cfg);
  masks_ = opt_.masks;
  per_chip_ = (p_.dvfs().caps() & kCapPerChip) != 0;
  if (asked_ == "none") return;
  if (!p_.frequencies().can_set()) {
    if (asked_ != "auto")
      core::warn_once("energy-no-dvfs",
                      "JOULE_ENERGY_POLICY=" + asked_ +
                          " needs frequencies that can be set, and JOULE_DVFS gives " +
                          p_.dvfs().name() + "; running as none");
    history_ = "none (no DVFS that can set frequencies)";
    return;
  }
  auto_ = asked_ == "auto";
  if (auto_ || asked_ == "mpi-slack") mpi_ = std::make_unique<MpiSlackDriver>(p_, opt_);
  use_policy(auto_ ? energy::resolve_auto(false, per_chip_) : asked_);
  if (auto_) history_ = "auto -> " + (resolved_.empty() ? std::string("none") : resolved_);
}

void Controller::use_policy(const std::string& name) {
  policy_.reset();
  resolved_.clear();
  periodic_ = false;
  if (name == "none") return;
  try {
    policy_ = energy::make_energy_policy(name, opt_);
  } catch (const std::invalid_argument&) {
    core::warn_once("energy-missing",
                    "energy policy " + name + " is not in this build; running as none");
    return;
  }
  resolved_ = name;
  periodic_ = policy_->trigger() == energy::Trigger::periodic;
  guard_.reset();
  if (opt_.guard && policy_->guardable()) {
    energy::GuardOptions g;
    g.budget = opt_.time_budget;
    g.slack = opt_.guard_slack;
    guard_ = std::make_unique<energy::TimeGuard>(g);
    guard_->reset(periodic_);
  }
  if (run_.affinity) run_.affinity->set_pinned(!periodic_);
}

void Controller::begin(const core::RunInfo& run, std::uint64_t now) {
  run_ = run;
  if (mpi_) mpi_->begin(p_.workers().count());
  if (!policy_) return;
  Dvfs& d = p_.dvfs();
  const int n = p_.workers().count();
  core_domain_.assign(std::size_t(n), 0);
  for (int w = 0; w < n; ++w) {
    const int dom = d.domain_of(p_.workers().cpu(w));
    int i = 0;
    while (i < int(domain_cpu_.size()) && d.domain_of(domain_cpu_[std::size_t(i)]) != dom) ++i;
    if (i == int(domain_cpu_.size())) {
      domain_cpu_.push_back(p_.workers().cpu(w));
      start_level_.push_back(d.level(p_.workers().cpu(w)));
    }
    core_domain_[std::size_t(w)] = i;
  }
  seen_.assign(std::size_t(n), CoreSeen{});
  parked_.assign(std::size_t(n), false);
  make_slots();
  build_observation();
  measure_switch_cost();
  last_ns_ = now;
  if (run_.affinity) run_.affinity->set_pinned(!periodic_);
  next_window_ns_ = periodic_ ? now + std::uint64_t(opt_.window_s * 1e9) : ~std::uint64_t(0);
  next_tick_ns_.store(next_window_ns_, std::memory_order_relaxed);
}

// A domain with one worker is that worker's to apply; a shared one (chip
// DVFS) is applied by the deciding thread.
void Controller::make_slots() {
  const std::size_t domains = domain_cpu_.size();
  slots_.reset(new DomainSlot[domains]);
  std::vector<int> members(domains, 0);
  for (int dom : core_domain_) ++members[std::size_t(dom)];
  owned_domain_.assign(core_domain_.size(), -1);
  for (std::size_t w = 0; w < core_domain_.size(); ++w) {
    const auto dom = std::size_t(core_domain_[w]);
    if (members[dom] != 1) continue;
    slots_[dom].owner = int(w);
    owned_domain_[w] = int(dom);
  }
  for (std::size_t i = 0; i < domains; ++i) {
    slots_[i].target.store(start_level_[i], std::memory_order_relaxed);
    slots_[i].applied.store(start_level_[i], std::memory_order_relaxed);
  }
}

// Two changes (away and back) on the first domain, timed, after an untimed
// pair: the first change of a real backend also saves the originals (state
// file) and switches the governor, which no later decision pays again. An
// emulated backend's modelled latency is part of the cost. Done before the
// runtime resets residency, and the stall it owes is dropped: no task paid it.
void Controller::measure_switch_cost() {
  Dvfs& d = p_.dvfs();
  if (domain_cpu_.empty()) return;
  const int cpu = domain_cpu_.front(), lvl = d.level(cpu);
  const int levels = int(d.pstates(cpu).size());
  if (lvl < 0 || levels < 2) return;
  d.set_level(cpu, lvl > 0 ? lvl - 1 : lvl + 1);
  d.set_level(cpu, lvl);
  const std::uint64_t t0 = core::now_ns();
  d.set_level(cpu, lvl > 0 ? lvl - 1 : lvl + 1);
  d.set_level(cpu, lvl);
  const std::uint64_t t1 = core::now_ns();
  for (int c : d.domain_cpus(d.domain_of(cpu))) d.take_stall_ns(c);
  switch_cost_s_ = double(t1 - t0) * 0.5e-9 + double(d.stall_ns()) * 1e-9;
}

// The creator's thread: it posts the boundary, and decides only if the
// claim is free (an iterative policy's window must end at the boundary).
// It never waits: with a decision in progress elsewhere, the next worker to
// end a task takes the boundary. It never writes a frequency either: the
// levels it publishes are applied by their workers, the rest at the next
// task end (docs/internals.md).
void Controller::iteration(std::uint64_t iteration, std::uint64_t now) {
  if (!policy_ || ended_.load(std::memory_order_relaxed)) return;
  posted_iteration_.store(iteration + 1, std::memory_order_seq_cst);
  posted_count_.fetch_add(1, std::memory_order_seq_cst);
  if (!try_claim()) {
    next_tick_ns_.store(0, std::memory_order_seq_cst);
    return;
  }
  run_claimed(now, false);
  release_claim();
}

// A worker at a task end found a decision due: it decides if it wins the
// claim, else goes on with its task (the winner covers what it saw).
void Controller::tick_due(std::uint64_t now) {
  if (ended_.load(std::memory_order_relaxed) || !try_claim()) return;
  run_claimed(now, true);
  release_claim();
}

// worker: a worker's thread, which applies the domains owners will not
// apply soon; the creator leaves them to the next task end.
void Controller::run_claimed(std::uint64_t now, bool worker) {
  next_tick_ns_.store(~std::uint64_t(0), std::memory_order_seq_cst);
  if (posted_count_.load(std::memory_order_seq_cst)) posted_iterations(now);
  if (policy_ && periodic_ && now >= next_window_ns_) {
    next_window_ns_ = now + std::uint64_t(opt_.window_s * 1e9);
    decide_claimed(now);
  }
  bool left = false;
  if (worker)
    apply_pending(false);
  else
    for (std::size_t i = 0; i < domain_cpu_.size() && !left; ++i)
      left = slots_[i].target.load() != slots_[i].applied.load();
  next_tick_ns_.store(policy_ && periodic_ && !left ? next_window_ns_
                      : left                        ? 0
                                                    : ~std::uint64_t(0),
                      std::memory_order_seq_cst);
  // A boundary posted since the first store: the next task end takes it.
  if (posted_count_.load(std::memory_order_seq_cst)) next_tick_ns_.store(0);
}

void Controller::posted_iterations(std::uint64_t now) {
  const std::uint64_t count = posted_count_.exchange(0, std::memory_order_seq_cst);
  const std::uint64_t posted = posted_iteration_.load(std::memory_order_seq_cst);
  if (!policy_ || count == 0) return;
  iteration_ = posted ? posted - 1 : iteration_;
  if (auto_ && periodic_ && saw_keys_.load(std::memory_order_relaxed)) {
    // The program is iterative with keys: the planned-loads policy fits.
    auto_ = false;
    use_policy(energy::resolve_auto(true, per_chip_));
    history_ += ", then " + (resolved_.empty() ? std::string("none") : resolved_) +
                " at iteration " + std::to_string(iteration_);
    publish_levels(start_level_);
    observe(now);  // the window so far belongs to the old policy
    since_decision_ = 0;
    next_window_ns_ = periodic_ ? now + std::uint64_t(opt_.window_s * 1e9) : ~std::uint64_t(0);
    return;
  }
  if (periodic_) return;
  since_decision_ += count;
  if (since_decision_ < std::uint64_t(std::max(opt_.period, 1))) return;
  since_decision_ = 0;
  decide_claimed(now);
}

void Controller::decide_claimed(std::uint64_t now) {
  const std::uint64_t t0 = core::now_ns();
  const energy::Observation& obs = observe(now);
  energy::Decision d = policy_->decide(obs);
  if (guard_) guard(obs, d);
  if (d.active_cores < 0) {
    const int keep = mask_target(obs);
    if (keep >= 0) {
      d.active_cores = keep;
      if (d.kind == energy::Decision::Kind::none) d.kind = energy::Decision::Kind::mask;
      d.why += (d.why.empty() ? "" : "; ") +
               (keep < int(obs.cores.size()) ? "mask: " + mask_choice_why_
                                             : std::string("mask: work queued, every core back"));
    }
  }
  decisions_.fetch_add(1, std::memory_order_relaxed);
  apply(d);
  overhead_ns_ += core::now_ns() - t0;
}

// The time guard's filter, and a trace event when it tripped, let the
// policy go again, or started or finished a baseline.
void Controller::guard(const energy::Observation& obs, energy::Decision& d) {
  d = guard_->filter(obs, std::move(d));
  const energy::GuardAction a = guard_->last_action();
  if (a != energy::GuardAction::none)
    core::trace::emit_event(core::trace::Event::kEvEnergyGuard, std::uint64_t(a));
}

void Controller::task_ended(WorkerSlot& s, std::uint64_t key, std::uint64_t work_ns,
                            std::uint64_t now) {
  if (key != JOULE_NO_AFFINITY) note_key(s, key, work_ns);
  tick(now);
  at_boundary(s.worker);
}

void Controller::task_starting(WorkerSlot& s) { at_boundary(s.worker); }

void Controller::note_key(WorkerSlot& s, std::uint64_t key, std::uint64_t work_ns) {
  if (!saw_keys_.load(std::memory_order_relaxed)) saw_keys_.store(true, std::memory_order_relaxed);
  s.keys_lock.lock();
  s.key_work_ns[key] += work_ns;
  s.keys_lock.unlock();
}

void Controller::mpi_enter(int worker) {
  if (mpi_) mpi_->enter(worker);
}

void Controller::mpi_leave(int worker) {
  if (mpi_) mpi_->leave(worker);
}

// Every domain back at its start level, here and now, whoever owns it: the
// workers have stopped, and a decision still running on one finishes first
// (the claim is held for as long as one decision takes).
void Controller::end(std::uint64_t) {
  if (mpi_) mpi_->end();
  ended_.store(true, std::memory_order_seq_cst);
  next_tick_ns_.store(~std::uint64_t(0), std::memory_order_relaxed);
  while (!try_claim()) std::this_thread::yield();
  if (policy_) {
    publish_levels(start_level_);
    apply_pending(true);
    if (run_.affinity) run_.affinity->set_pinned(false);
  }
  release_claim();
}

}  // namespace joule::control
