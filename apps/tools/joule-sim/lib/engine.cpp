#include "engine.hpp"

#include <algorithm>

#include "network_model.hpp"
#include "noise_model.hpp"
#include "platform_model.hpp"
#include "room_model.hpp"
#include "workload.hpp"

namespace joule::sim {
namespace {

class StepEngine {
 public:
  StepEngine(const Scenario& s, bool record)
      : s_(s),
        plat_(s.platform),
        load_(s.workload, plat_.cores(), s.platform.cores_per_chip),
        net_(s.network, int(load_.objects().size()), s.platform.cores_per_chip, s.workload.seed),
        room_(s.room),
        noise_(s.noise, plat_.cores()),
        record_(record) {
    for (const auto& o : load_.objects()) map_.push_back(o.pe), keys_.push_back(o.key);
    if (s.policy.name != "none") policy_ = energy::make_energy_policy(s.policy.name, s.policy.opt);
    guard_ = make_guard(s, policy_.get());
    const auto n = std::size_t(plat_.cores());
    busy_.assign(n, 0), stall_.assign(n, 0), win_busy_.assign(n, 0), win_work_.assign(n, 0);
    lost_.assign(n, 0);
    key_work_.assign(map_.size(), 0);
    comm_.assign(n, 0);
    if (net_.active()) net_.comm_per_core(map_, comm_);
    if (room_.active()) {  // the room settled around the machine at full power
      double full = 0;
      for (int c = 0; c < plat_.cores(); ++c) full += plat_.busy_watts(c);
      plat_.set_air_c(room_.supply_c(full + plat_.chips() * plat_.uncore_watts()));
      plat_.settle();
    }
    r_.policy = s.policy.name;
  }

  RunResult run() {
    std::vector<double> work;
    for (int step = 1; step <= s_.workload.steps; ++step) {
      load_.step_work(step, work);
      compute_step(work);
      char decided = '-';
      if (policy_ && step % s_.policy.opt.period == 0) decided = decide(step);
      if (record_) record(step, decided);
    }
    finish();
    return r_;
  }

 private:
  // One step: per-core busy time, the step's length, energy and heat.
  double compute_step(const std::vector<double>& work) {
    const double fmax = plat_.fmax_ghz(), m = s_.workload.mem_bound;
    std::fill(busy_.begin(), busy_.end(), 0.0);
    for (std::size_t i = 0; i < work.size(); ++i) {
      const int c = map_[i];
      const double f = plat_.ghz_of_core(c);
      const double t = work[i] * ((1 - m) * fmax / f + m);
      busy_[std::size_t(c)] += t;
      key_work_[i] += t * f / fmax;  // as the live runtime weighs busy time
    }
    double t = 0;
    for (std::size_t c = 0; c < busy_.size(); ++c) {
      lost_[c] = noise_.draw(int(c));
      r_.noise_s += lost_[c];
      t = std::max(t, busy_[c] + lost_[c] + stall_[c] + comm_[c]);
    }
    t += load_.comm_s();
    std::vector<double> chip_w(std::size_t(plat_.chips()), plat_.uncore_watts());
    for (std::size_t c = 0; c < busy_.size(); ++c) {
      const int core = int(c);
      // A delay keeps the core busy (another process runs at its P-state)
      // and is wall time in our task bodies, but no work of ours.
      const double on = busy_[c] + lost_[c];
      const double e = on * plat_.busy_watts(core) + (t - on) * plat_.wait_watts(core);
      chip_w[std::size_t(plat_.chip_of(core))] += t > 0 ? e / t : 0;
      win_busy_[c] += on;
      win_work_[c] += busy_[c] * plat_.ghz_of_core(core) / fmax;
      ghz_time_ += plat_.ghz_of_core(core) * t;
    }
    std::fill(stall_.begin(), stall_.end(), 0.0);
    account(t, chip_w);
    window_s_ += t;
    ++window_steps_;
    return t;
  }

  void account(double t, const std::vector<double>& chip_w) {
    double total = 0;
    for (double w : chip_w) total += w;
    r_.energy_j += total * t;
    r_.time_s += t;
    last_power_w_ = total;
    if (room_.active()) {  // the CRAC's load, and the inlet air it supplies
      r_.room_dt_ks += room_.delta_k(total) * t;
      plat_.set_air_c(room_.supply_c(total));
    }
    if (t > 0) plat_.advance_thermal(t, chip_w);
    for (double c : plat_.temperatures()) r_.max_temp_c = std::max(r_.max_temp_c, c);
  }

  energy::Observation observe(int step) const {
    energy::Observation obs;
    obs.now_ns = std::uint64_t(r_.time_s * 1e9);
    obs.window_s = window_s_;
    obs.iteration = std::uint64_t(step);
    plat_.fill_observation(obs);
    for (int c = 0; c < plat_.cores(); ++c) {
      energy::CoreView v;
      v.domain = plat_.domain_of(c);
      v.chip = plat_.chip_of(c);
      v.busy_s = win_busy_[std::size_t(c)];
      v.work_s = win_work_[std::size_t(c)];
      v.stretch_s = v.busy_s - v.work_s;
      v.idle_s = std::max(0.0, window_s_ - v.busy_s);
      obs.cores.push_back(v);
    }
    for (std::size_t i = 0; i < map_.size(); ++i)  // keys with work, by key (as live)
      if (key_work_[i] > 0) obs.keys.push_back({keys_[i], map_[i], key_work_[i]});
    if (net_.active()) net_.fill_edges(keys_, window_steps_, obs.edges);
    return obs;
  }

  char decide(int step) {
    const energy::Observation obs = observe(step);
    energy::Decision d = policy_->decide(obs);
    if (guard_) d = guard_->filter(obs, std::move(d));
    for (std::size_t dom = 0; dom < d.domain_level.size(); ++dom) {
      if (!plat_.set_level(int(dom), d.domain_level[dom])) continue;
      ++r_.dvfs_changes;
      for (int c = 0; c < plat_.cores(); ++c)
        if (plat_.domain_of(c) == int(dom))
          stall_[std::size_t(c)] += s_.platform.dvfs_latency_us * 1e-6;
    }
    double pause = s_.lb.decision_s;
    if (d.kind == energy::Decision::Kind::balance) pause += s_.lb.balance_s, ++r_.lb_calls;
    if (d.kind == energy::Decision::Kind::dvfs) ++r_.dvfs_calls;
    for (const auto& [key, to] : d.moves) {
      const int from = map_[std::size_t(key)];
      if (from == to) continue;
      map_[std::size_t(key)] = to;
      ++r_.migrations;
      pause += s_.lb.per_migration_s + (net_.active()
                                            ? net_.transfer_s(from, to, s_.workload.object_mb)
                                            : s_.workload.object_mb * 1e-3 / s_.lb.bandwidth_gbs);
    }
    if (net_.active() && !d.moves.empty()) net_.comm_per_core(map_, comm_);
    if (pause > 0) pause_for(pause);
    std::fill(win_busy_.begin(), win_busy_.end(), 0.0);
    std::fill(win_work_.begin(), win_work_.end(), 0.0);
    std::fill(key_work_.begin(), key_work_.end(), 0.0);
    window_s_ = 0;
    window_steps_ = 0;
    return d.kind == energy::Decision::Kind::balance ? 'b'
           : d.kind == energy::Decision::Kind::dvfs  ? 'd'
                                                     : '-';
  }

  // The program stops for load balancing: every core at idle power.
  void pause_for(double t) {
    std::vector<double> chip_w(std::size_t(plat_.chips()), plat_.uncore_watts());
    for (int c = 0; c < plat_.cores(); ++c) {
      chip_w[std::size_t(plat_.chip_of(c))] += plat_.idle_watts(c);
      ghz_time_ += plat_.ghz_of_core(c) * t;
    }
    r_.lb_time_s += t;
    account(t, chip_w);
  }

  void record(int step, char decided) {
    StepRecord rec{step, r_.time_s, last_power_w_, 0, 0, decided};
    for (int c = 0; c < plat_.cores(); ++c) rec.mean_ghz += plat_.ghz_of_core(c) / plat_.cores();
    for (double c : plat_.temperatures()) rec.max_temp_c = std::max(rec.max_temp_c, c);
    r_.steps.push_back(rec);
  }

  void finish() {
    r_.avg_power_w = r_.time_s > 0 ? r_.energy_j / r_.time_s : 0;
    r_.avg_ghz = r_.time_s > 0 ? ghz_time_ / (r_.time_s * plat_.cores()) : 0;
    for (int c = 0; c < plat_.cores(); ++c) r_.final_ghz.push_back(plat_.ghz_of_core(c));
    r_.remote_messages = net_.remote_messages(map_);
    finish_guard(guard_.get(), r_);
  }

  const Scenario& s_;
  PlatformModel plat_;
  Workload load_;
  NetworkModel net_;
  RoomModel room_;
  NoiseModel noise_;
  bool record_;
  std::unique_ptr<energy::EnergyPolicy> policy_;
  std::unique_ptr<energy::TimeGuard> guard_;
  std::vector<int> map_;             // object -> core
  std::vector<std::uint64_t> keys_;  // object -> affinity key
  std::vector<double> busy_, stall_, win_busy_, win_work_, key_work_;
  std::vector<double> lost_;  // per core: this step's noise delay
  std::vector<double> comm_;  // per core: network seconds per step under map_
  double window_s_ = 0, ghz_time_ = 0, last_power_w_ = 0;
  int window_steps_ = 0;
  RunResult r_;
};

}  // namespace

// The live controller's choice: GuardOptions.budget from the policy's time
// budget, reset for the policy's trigger.
std::unique_ptr<energy::TimeGuard> make_guard(const Scenario& s,
                                              const energy::EnergyPolicy* policy) {
  if (!policy || !s.policy.opt.guard || !policy->guardable()) return nullptr;
  energy::GuardOptions g;
  g.budget = s.policy.opt.time_budget;
  g.slack = s.policy.opt.guard_slack;
  auto guard = std::make_unique<energy::TimeGuard>(g);
  guard->reset(policy->trigger() == energy::Trigger::periodic);
  return guard;
}

void finish_guard(const energy::TimeGuard* guard, RunResult& r) {
  if (!guard) return;
  r.guarded = true;
  r.guard = guard->stats();
  r.guard_summary = guard->summary();
}

RunResult run_scenario(const Scenario& s, bool record_steps) {
  if (s.workload.kind == "dag") return run_dag(s, record_steps);
  if (s.workload.kind == "split") return run_split(s, record_steps);
  if (s.lending.active()) return run_lending(s, record_steps);
  return StepEngine(s, record_steps).run();
}

}  // namespace joule::sim
