// The dag kind: a task graph (a chain of `chain` tasks, each waiting on the
// previous, plus `independents` free tasks, all of task_s at fmax; with
// `side` > 0 each chain task also releases, when it ends, a side task of
// side x task_s with no successors) run by a list scheduler over the cores,
// event by event. Chain tasks go first (the critical path); a free core
// takes the next ready task. A task that starts may first lose a noise
// delay (noise_model.hpp: wall time at busy power, no work). Every
// policy.window_s the policy (queue-depth: Trigger::periodic) sees the
// window's busy and work time, the ready count, which cores run a chain task
// with a successor, and its levels apply at once (through the time guard
// with policy.guard); a running task's remaining work is then finished at
// the new frequency.
#include <algorithm>
#include <deque>
#include <limits>

#include "engine.hpp"
#include "noise_model.hpp"
#include "platform_model.hpp"

namespace joule::sim {
namespace {

class DagEngine {
 public:
  DagEngine(const Scenario& s, bool record)
      : s_(s), plat_(s.platform), noise_(s.noise, plat_.cores()), record_(record) {
    const auto n = std::size_t(plat_.cores());
    rem_.assign(n, 0), task_.assign(n, -1), win_busy_.assign(n, 0), win_work_.assign(n, 0);
    lost_.assign(n, 0);
    for (int i = 0; i < s.workload.independents; ++i) free_.push_back(i + s.workload.chain);
    next_side_ = s.workload.chain + s.workload.independents;
    if (s.policy.name != "none") policy_ = energy::make_energy_policy(s.policy.name, s.policy.opt);
    guard_ = make_guard(s, policy_.get());
    r_.policy = s.policy.name;
  }

  RunResult run() {
    const double window = s_.policy.opt.window_s;
    double next_window = window;
    assign();
    while (running() > 0) {
      const double next = std::min(next_finish(), policy_ ? next_window : kNever);
      advance(next - now_);
      assign();  // successors start at once, as on the live runtime
      if (policy_ && now_ >= next_window - 1e-15) decide(), next_window += window;
    }
    r_.time_s = now_;
    r_.avg_power_w = now_ > 0 ? r_.energy_j / now_ : 0;
    r_.avg_ghz = now_ > 0 ? ghz_time_ / (now_ * plat_.cores()) : 0;
    for (int c = 0; c < plat_.cores(); ++c) r_.final_ghz.push_back(plat_.ghz_of_core(c));
    finish_guard(guard_.get(), r_);
    return r_;
  }

 private:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  bool is_chain(int t) const { return t < s_.workload.chain; }
  double cost_of(int t) const {
    const bool side = t >= s_.workload.chain + s_.workload.independents;
    return side ? s_.workload.side * s_.workload.task_s : s_.workload.task_s;
  }
  int running() const {
    return int(std::count_if(task_.begin(), task_.end(), [](int t) { return t >= 0; }));
  }
  double speed(int c) const { return plat_.ghz_of_core(c) / plat_.fmax_ghz(); }

  double next_finish() const {
    double t = kNever;
    for (std::size_t c = 0; c < task_.size(); ++c)
      if (task_[c] >= 0) t = std::min(t, now_ + lost_[c] + rem_[c] / speed(int(c)));
    return t;
  }

  // Moves time on by dt: work done, energy, and tasks that finish.
  void advance(double dt) {
    std::vector<double> chip_w(std::size_t(plat_.chips()), plat_.uncore_watts());
    for (std::size_t c = 0; c < task_.size(); ++c) {
      const int core = int(c);
      const bool busy = task_[c] >= 0;
      chip_w[std::size_t(plat_.chip_of(core))] +=
          busy ? plat_.busy_watts(core) : plat_.wait_watts(core);
      ghz_time_ += plat_.ghz_of_core(core) * dt;
      if (!busy) continue;
      win_busy_[c] += dt;
      const double lost = std::min(dt, lost_[c]);  // the delay comes first
      lost_[c] -= lost;
      win_work_[c] += (dt - lost) * speed(core);
      rem_[c] -= (dt - lost) * speed(core);
      if (rem_[c] > 1e-12 || lost_[c] > 1e-15) continue;
      if (is_chain(task_[c])) {
        chain_done_ = task_[c] + 1;
        if (s_.workload.side > 0) free_.push_back(next_side_++);
      }
      task_[c] = -1;
    }
    double total = 0;
    for (double w : chip_w) total += w;
    r_.energy_j += total * dt;
    if (dt > 0) plat_.advance_thermal(dt, chip_w);
    for (double t : plat_.temperatures()) r_.max_temp_c = std::max(r_.max_temp_c, t);
    now_ += dt;
    window_s_ += dt;
  }

  // Free cores take ready tasks: the next chain task first.
  void assign() {
    for (std::size_t c = 0; c < task_.size(); ++c) {
      if (task_[c] >= 0) continue;
      int t = -1;
      if (chain_next_ < s_.workload.chain && chain_next_ == chain_done_)
        t = chain_next_++;
      else if (!free_.empty())
        t = free_.front(), free_.pop_front();
      if (t < 0) return;
      task_[c] = t;
      rem_[c] = cost_of(t);
      lost_[c] = noise_.draw(int(c));
      r_.noise_s += lost_[c];
    }
  }

  void decide() {
    energy::Observation obs;
    obs.now_ns = std::uint64_t(now_ * 1e9);
    obs.window_s = window_s_;
    plat_.fill_observation(obs);
    const int ready =
        int(free_.size()) + (chain_next_ < s_.workload.chain && chain_next_ == chain_done_);
    for (int c = 0; c < plat_.cores(); ++c) {
      energy::CoreView v;
      v.domain = plat_.domain_of(c), v.chip = plat_.chip_of(c);
      v.busy_s = win_busy_[std::size_t(c)], v.work_s = win_work_[std::size_t(c)];
      v.idle_s = std::max(0.0, window_s_ - v.busy_s);
      v.ready = ready;
      v.running = task_[std::size_t(c)] >= 0;
      v.running_critical = v.running && task_[std::size_t(c)] + 1 < s_.workload.chain;
      obs.cores.push_back(v);
    }
    energy::Decision d = policy_->decide(obs);
    if (guard_) d = guard_->filter(obs, std::move(d));
    for (std::size_t dom = 0; dom < d.domain_level.size(); ++dom)
      r_.dvfs_changes += plat_.set_level(int(dom), d.domain_level[dom]);
    if (d.kind == energy::Decision::Kind::dvfs) ++r_.dvfs_calls;
    if (record_) record();
    std::fill(win_busy_.begin(), win_busy_.end(), 0.0);
    std::fill(win_work_.begin(), win_work_.end(), 0.0);
    window_s_ = 0;
  }

  void record() {
    StepRecord rec{int(r_.steps.size()) + 1, now_, 0, 0, 0, '-'};
    for (int c = 0; c < plat_.cores(); ++c) rec.mean_ghz += plat_.ghz_of_core(c) / plat_.cores();
    rec.power_w = now_ > 0 ? r_.energy_j / now_ : 0;
    r_.steps.push_back(rec);
  }

  const Scenario& s_;
  PlatformModel plat_;
  NoiseModel noise_;
  bool record_;
  std::unique_ptr<energy::EnergyPolicy> policy_;
  std::unique_ptr<energy::TimeGuard> guard_;
  std::vector<double> rem_, win_busy_, win_work_;
  std::vector<double> lost_;  // per core: noise delay left before its task's work
  std::vector<int> task_;
  std::deque<int> free_;
  int chain_next_ = 0, chain_done_ = 0, next_side_ = 0;
  double now_ = 0, window_s_ = 0, ghz_time_ = 0;
  RunResult r_;
};

}  // namespace

RunResult run_dag(const Scenario& s, bool record_steps) { return DagEngine(s, record_steps).run(); }

}  // namespace joule::sim
