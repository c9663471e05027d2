// The DLB thesis's LeWI (Garcia-Gasulla, §6.2) between the MPI ranks of one
// node (docs/simulator.md, "Lending"). The platform's cores are split evenly
// over the ranks; per step each rank's work (static, pils or btmz, seconds at
// fmax) is cut into tasks of workload.task_us, all ready at the step's start,
// and the step ends in a barrier when the last rank's last task ends. An event
// loop takes the core that frees first (ties: the lowest id):
//   - its owner has tasks left: the owner runs the next one (owners first);
//   - lending off: the core waits for the barrier;
//   - lending on, not yet lent: it is lent, at once (policy auto: an idle
//     worker lends its CPU) or when its rank enters the barrier (policy
//     mpi: its rank's last task ends);
//   - lent: the rank with the most work left borrows it, paying
//     borrow_latency_us once per acquisition, and keeps it while it has tasks.
// The barrier returns every lent core to its owner. Deterministic: no
// randomness beyond the workload's seeded one.
#include <algorithm>
#include <limits>

#include "engine.hpp"
#include "platform_model.hpp"
#include "workload.hpp"

namespace joule::sim {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

struct Core {
  int owner = 0;
  int holder = -1;         // the borrower holding it (-1: none)
  double free_s = 0;       // when it can start its next task (from the step's start)
  double lent_s = kNever;  // when its owner lent it
  double own_busy_s = 0, lent_busy_s = 0, busy_j = 0;
  bool done = false;
};

class LendEngine {
 public:
  LendEngine(const Scenario& s, bool record)
      : s_(s),
        plat_(s.platform),
        ranks_(s.lending.ranks > 0 ? s.lending.ranks : plat_.cores()),
        per_rank_(plat_.cores() / ranks_),
        load_(s.workload, ranks_, s.platform.cores_per_chip),
        record_(record) {
    r_.policy = "none";
    r_.lending.cores = plat_.cores();
    r_.lending.ranks = ranks_;
  }

  RunResult run() {
    std::vector<double> work;
    for (int step = 1; step <= s_.workload.steps; ++step) {
      load_.step_work(step, work);
      std::vector<double> per_rank(std::size_t(ranks_), 0.0);
      for (std::size_t i = 0; i < work.size(); ++i)
        per_rank[std::size_t(load_.objects()[i].pe)] += work[i];
      run_step(std::move(per_rank));
      if (record_) record(step);
    }
    r_.avg_power_w = r_.time_s > 0 ? r_.energy_j / r_.time_s : 0;
    r_.avg_ghz = r_.time_s > 0 ? ghz_time_ / (r_.time_s * plat_.cores()) : 0;
    for (int c = 0; c < plat_.cores(); ++c) r_.final_ghz.push_back(plat_.ghz_of_core(c));
    return r_;
  }

 private:
  void run_step(std::vector<double> left) {
    left_ = std::move(left);
    last_s_.assign(std::size_t(ranks_), 0.0);
    cores_.assign(std::size_t(plat_.cores()), Core{});
    for (int c = 0; c < plat_.cores(); ++c) cores_[std::size_t(c)].owner = c / per_rank_;
    for (int k = next_core(); k >= 0; k = next_core()) advance(cores_[std::size_t(k)]);
    account_step(*std::max_element(last_s_.begin(), last_s_.end()) + load_.comm_s());
  }

  int next_core() const {
    int best = -1;
    for (int c = 0; c < int(cores_.size()); ++c) {
      const Core& k = cores_[std::size_t(c)];
      if (!k.done && (best < 0 || k.free_s < cores_[std::size_t(best)].free_s)) best = c;
    }
    return best;
  }

  void advance(Core& c) {
    if (left_[std::size_t(c.owner)] > 0) return run_task(c, c.owner);
    if (!s_.lending.lewi) return void(c.done = true);
    if (c.lent_s == kNever) return lend(c);
    // A borrower keeps the core while it has tasks (no ping-pong between borrowers).
    const int b = c.holder >= 0 && left_[std::size_t(c.holder)] > 0 ? c.holder : borrower();
    if (b < 0) return void(c.done = true);
    if (c.holder != b) {
      c.holder = b;
      ++r_.lending.borrows;
      const double latency = s_.lending.borrow_latency_us * 1e-6;
      c.free_s += latency;
      if (latency > 0) return;  // reconsidered when the borrow completes
    }
    run_task(c, b);
  }

  // auto: the idle worker lends its CPU now; mpi: when its rank blocks in the
  // barrier, i.e. when the rank's last task ends (every one has started).
  void lend(Core& c) {
    c.lent_s = s_.lending.auto_lend ? c.free_s : std::max(c.free_s, last_s_[std::size_t(c.owner)]);
    c.free_s = c.lent_s;
    ++r_.lending.lends;
  }

  // The rank with the most work left (ties: the lowest), -1 when none has any.
  int borrower() const {
    int best = -1;
    for (int r = 0; r < ranks_; ++r)
      if (left_[std::size_t(r)] > 0 &&
          (best < 0 || left_[std::size_t(r)] > left_[std::size_t(best)]))
        best = r;
    return best;
  }

  // One task of `rank` on core c, at the rank's own P-state and busy power.
  void run_task(Core& c, int rank) {
    const double tau = s_.workload.task_us * 1e-6;
    double& left = left_[std::size_t(rank)];
    const double d = std::min(tau, left);
    left = left - d > tau * 1e-9 ? left - d : 0;  // no residue from rounding
    const int home = rank * per_rank_;            // the rank's first core sets its P-state
    const double f = plat_.ghz_of_core(home), m = s_.workload.mem_bound;
    const double dt = d * ((1 - m) * plat_.fmax_ghz() / f + m);
    c.busy_j += dt * plat_.busy_watts(home);
    (rank == c.owner ? c.own_busy_s : c.lent_busy_s) += dt;
    c.free_s += dt;
    last_s_[std::size_t(rank)] = std::max(last_s_[std::size_t(rank)], c.free_s);
    ++r_.lending.tasks;
    r_.lending.useful_core_s += dt;
    if (rank != c.owner) ++r_.lending.borrowed_tasks, r_.lending.borrowed_core_s += dt;
  }

  // A core waits (wait power) until it is lent, then idles (idle power) when
  // no borrower runs on it.
  void account_step(double t) {
    std::vector<double> chip_w(std::size_t(plat_.chips()), plat_.uncore_watts());
    for (int k = 0; k < plat_.cores(); ++k) {
      const Core& c = cores_[std::size_t(k)];
      const double lent = std::min(c.lent_s, t);
      const double wait = std::max(0.0, lent - c.own_busy_s);
      const double idle = std::max(0.0, t - lent - c.lent_busy_s);
      const double e = c.busy_j + wait * plat_.wait_watts(k) + idle * plat_.idle_watts(k);
      chip_w[std::size_t(plat_.chip_of(k))] += t > 0 ? e / t : 0;
      ghz_time_ += plat_.ghz_of_core(k) * t;
    }
    double total = 0;
    for (double w : chip_w) total += w;
    r_.energy_j += total * t;
    r_.time_s += t;
    last_power_w_ = total;
    if (t > 0) plat_.advance_thermal(t, chip_w);
    for (double c : plat_.temperatures()) r_.max_temp_c = std::max(r_.max_temp_c, c);
  }

  void record(int step) {
    StepRecord rec{step, r_.time_s, last_power_w_, 0, 0, '-'};
    for (int c = 0; c < plat_.cores(); ++c) rec.mean_ghz += plat_.ghz_of_core(c) / plat_.cores();
    for (double c : plat_.temperatures()) rec.max_temp_c = std::max(rec.max_temp_c, c);
    r_.steps.push_back(rec);
  }

  const Scenario& s_;
  PlatformModel plat_;
  int ranks_, per_rank_;
  Workload load_;
  bool record_;
  std::vector<Core> cores_;
  std::vector<double> left_;    // per rank: work not yet started, seconds at fmax
  std::vector<double> last_s_;  // per rank: when its last started task ends
  double ghz_time_ = 0, last_power_w_ = 0;
  RunResult r_;
};

}  // namespace

RunResult run_lending(const Scenario& s, bool record_steps) {
  return LendEngine(s, record_steps).run();
}

}  // namespace joule::sim
