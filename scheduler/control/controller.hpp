// control::Controller, the energy controller: the live side of scheduler/energy. It owns the
// policy JOULE_ENERGY_POLICY names, builds its Observation from what the
// platform accounts per worker (busy, stretch, work at fmax, per-key work),
// calls decide() at iteration boundaries or from a cheap time check at task
// ends (never from a thread of its own), and applies the Decision: P-states
// through Dvfs, key moves through the runtime's AffinityMap, and CPU masks
// by parking workers. At stop it puts every domain back at its start level.
// It is the platform's listener (platform_listener.hpp): the Platform calls
// it from its hooks; it reads the Platform through its public API.
//
// Thread rules (docs/internals.md, "The energy controller's threads"): the
// task hooks run on the worker's thread and touch only its slot. A decision
// runs on at most one thread at a time, whichever worker wins an atomic
// claim at a task end once a window has passed, or the creator at an
// iteration boundary if the claim is free (else it posts the boundary for
// the next task end); whoever loses goes on, nobody waits. The outcome is published in per-domain
// slots; the worker owning a domain applies it at its next task boundary (a relaxed load and
// compare when nothing changed); domains nobody owns, or whose owner sleeps, are applied by the
// deciding thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "energy_policy.hpp"
#include "observer.hpp"
#include "platform_listener.hpp"
#include "time_guard.hpp"

namespace joule::core {
struct Config;
class AffinityMap;
}  // namespace joule::core

namespace joule::platform {
class Platform;
struct WorkerSlot;
}  // namespace joule::platform

namespace joule::control {

class MpiSlackDriver;

class Controller final : public platform::PlatformListener {
 public:
  // Chooses the policy (a warning and "none" when DVFS cannot be set).
  Controller(platform::Platform& p, const core::Config& cfg);
  ~Controller() override;

  bool live() const noexcept override { return policy_ != nullptr; }
  // Whether task starts should tell running_critical (the graph policies).
  bool wants_critical() const noexcept override {
    return periodic_.load(std::memory_order_relaxed);
  }

  // Platform::begin, after the start frequency: measures the switch cost.
  void begin(const core::RunInfo& run, std::uint64_t now) override;
  void iteration(std::uint64_t iteration, std::uint64_t now) override;
  // A task ended (worker's own thread): its key's work is counted.
  void task_ended(platform::WorkerSlot& s, std::uint64_t key, std::uint64_t work_ns,
                  std::uint64_t now) override;
  // A task ended somewhere: a decision is due every window (periodic) or
  // after a posted iteration boundary.
  void tick(std::uint64_t now) {
    if (now >= next_tick_ns_.load(std::memory_order_relaxed)) tick_due(now);
  }
  // A worker's task boundary: applies its domain's published level.
  void at_boundary(int worker) {
    if (worker < 0 || std::size_t(worker) >= owned_domain_.size()) return;
    const int d = owned_domain_[std::size_t(worker)];
    if (d < 0) return;
    const DomainSlot& s = slots_[std::size_t(d)];
    if (s.target.load(std::memory_order_relaxed) != s.applied.load(std::memory_order_relaxed))
      apply_domain(d, true);
  }
  // The claim every decision takes (an atomic flag, never waited on by the
  // task path): tests hold it to show that iteration() does not wait.
  bool try_claim() noexcept { return !deciding_.exchange(true, std::memory_order_acquire); }
  void release_claim() noexcept { deciding_.store(false, std::memory_order_release); }
  std::uint64_t decisions() const noexcept { return decisions_.load(std::memory_order_relaxed); }
  // Before a task (worker's own thread): its domain's published level.
  void task_starting(platform::WorkerSlot& s) override;
  // A keyed task's work, counted for the policy (worker's own thread).
  void note_key(platform::WorkerSlot& s, std::uint64_t key, std::uint64_t work_ns);
  // Platform::end: back to the start frequencies, workers unparked.
  void end(std::uint64_t now) override;
  void report(std::ostream& os) const override;
  // A worker's thread enters / leaves a blocking MPI call (libjoule-mpi).
  void mpi_enter(int worker) override;
  void mpi_leave(int worker) override;

 private:
  struct CoreSeen {
    std::uint64_t busy = 0, stretch = 0, work = 0;
  };
  void choose(const core::Config& cfg);
  void use_policy(const std::string& name);
  // One domain's published level: `target` written by the deciding thread,
  // `applied` by whoever applied it (under `applying`, a try-flag).
  struct alignas(64) DomainSlot {
    std::atomic<int> target{-1}, applied{-1};
    std::atomic<bool> applying{false};
    int owner = -1;               // the only worker in the domain; -1: shared
    std::uint64_t published = 0;  // decision number that set target
  };
  void make_slots();
  void tick_due(std::uint64_t now);
  void run_claimed(std::uint64_t now, bool worker);
  void posted_iterations(std::uint64_t now);
  void decide_claimed(std::uint64_t now);
  void guard(const energy::Observation& obs, energy::Decision& d);
  bool publish_levels(const std::vector<int>& levels);
  void apply_domain(int d, bool owner = false);
  void apply_pending(bool all);
  void build_observation();
  const energy::Observation& observe(std::uint64_t now);
  void add_keys(energy::Observation& obs);
  void apply(const energy::Decision& d);
  bool apply_moves(const std::vector<std::pair<std::uint64_t, int>>& moves);
  bool apply_mask(int active);
  int worker_of_key(std::uint64_t key) const;
  int mask_target(const energy::Observation& obs);  // mask.cpp
  void measure_switch_cost();
  double saving_estimate(double* at_fmax_j, double* modelled_j) const;

  platform::Platform& p_;
  energy::Options opt_;
  std::string asked_;     // JOULE_ENERGY_POLICY as given
  std::string resolved_;  // what runs now ("" when none)
  std::string history_;   // how auto resolved, for the report
  bool auto_ = false;     // "auto": may switch to an iterative policy once
  // The policy's trigger is periodic; workers read it (wants_critical) while
  // the decider may switch policies (auto).
  std::atomic<bool> periodic_{false};
  bool masks_ = true;      // JOULE_ENERGY_MASKS
  bool per_chip_ = false;  // DVFS domains are chips
  std::unique_ptr<energy::EnergyPolicy> policy_;
  // Filters the policy's levels (Options::guard): the claim holder's.
  std::unique_ptr<energy::TimeGuard> guard_;
  std::unique_ptr<MpiSlackDriver> mpi_;  // auto or mpi-slack, with DVFS
  core::RunInfo run_;
  std::vector<int> domain_cpu_;   // a platform CPU of each observed domain
  std::vector<int> core_domain_;  // worker -> observed domain
  std::vector<int> start_level_;  // per observed domain
  std::vector<CoreSeen> seen_;
  energy::Observation obs_;  // the claim holder's, refreshed by observe()
  std::vector<bool> parked_;
  std::uint64_t last_ns_ = 0, iteration_ = 0, since_decision_ = 0;
  std::atomic<bool> saw_keys_{false};  // a keyed task ran (auto's switch)
  double switch_cost_s_ = 0;
  std::atomic<std::uint64_t> next_tick_ns_{~std::uint64_t(0)};
  std::uint64_t next_window_ns_ = ~std::uint64_t(0);  // claim holder's
  std::atomic<bool> deciding_{false};
  std::atomic<bool> ended_{false};
  std::atomic<std::uint64_t> posted_iteration_{0}, posted_count_{0};
  std::unique_ptr<DomainSlot[]> slots_;
  std::vector<int> owned_domain_;  // worker -> the domain it alone owns, or -1
  // For the report: counts and costs (decide: observe + policy + publish;
  // apply: one domain's DVFS write, on whichever thread did it).
  std::atomic<std::uint64_t> decisions_{0};
  std::uint64_t dvfs_ = 0, balance_ = 0, mask_ = 0, moved_keys_ = 0;
  std::uint64_t overhead_ns_ = 0;
  std::atomic<std::uint64_t> applies_{0}, apply_ns_{0}, applies_by_owner_{0};
  int min_cores_ = -1;
  std::string last_why_, mask_why_, mask_choice_why_;
  int shrink_streak_ = 0;
};

}  // namespace joule::control
