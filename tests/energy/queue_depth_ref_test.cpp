// queue-depth's decision is O(workers) now (rule 2 counts the free cores
// once instead of scanning every core per core). Property: on random
// observations, over consecutive windows (its hysteresis is state), it
// decides exactly what the quadratic rule it replaced decided. The
// reference below is that rule, written as the policy's header states it.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "energy_registry.hpp"
#include "test_obs.hpp"

namespace joule::energy::test {
namespace {

class QuadraticQueueDepth {
 public:
  explicit QuadraticQueueDepth(const Options& opt) : opt_(opt) {}

  Decision decide(const Observation& obs) {
    const double window = obs.window_s > 0 ? obs.window_s : opt_.window_s;
    const bool may_switch = window > opt_.switch_payback * obs.switch_cost_s;
    streak_.resize(obs.domains.size(), 0);
    ask_.resize(obs.domains.size(), 0);
    Decision d;
    bool changed = false;
    for (std::size_t i = 0; i < obs.domains.size(); ++i) {
      const auto& dom = obs.domains[i];
      int want = -1;
      for (int c : dom.cores) want = std::max(want, level(obs, std::size_t(c), window));
      int lvl = dom.level;
      if (want < 0 || want == dom.level) {
        streak_[i] = 0;
      } else if (want > dom.level) {
        streak_[i] = 0;
        if (may_switch) lvl = want;
      } else {
        ask_[i] = streak_[i] == 0 ? want : std::max(ask_[i], want);
        if (++streak_[i] >= opt_.down_windows && may_switch) lvl = ask_[i], streak_[i] = 0;
      }
      changed |= lvl != dom.level;
      d.domain_level.push_back(lvl);
    }
    if (!changed) return {};
    d.kind = Decision::Kind::dvfs;
    return d;
  }

 private:
  int level(const Observation& obs, std::size_t c, double window) const {
    const auto& core = obs.cores[c];
    const auto& dom = obs.domains[std::size_t(core.domain)];
    const int top = int(dom.pstates.size()) - 1;
    if (core.parked || top < 0) return -1;
    if (core.running_critical) return top;
    if (core.ready > 0) {
      for (std::size_t j = 0; j < obs.cores.size(); ++j)  // the O(N) scan per core
        if (j != c && !obs.cores[j].parked && !obs.cores[j].running) return dom.level;
      return top;
    }
    const double room = window * (1 - opt_.time_budget);
    for (int l = 0; l < top; ++l)
      if (core.work_s * dom.fmax() <= room * dom.pstates[std::size_t(l)]) return l;
    return top;
  }

  Options opt_;
  std::vector<int> streak_, ask_;
};

class QueueDepthEquivalence : public ::testing::TestWithParam<int> {};

TEST_P(QueueDepthEquivalence, SameDecisionsAsTheQuadraticRuleOnRandomWindows) {
  const int cores = GetParam();
  std::mt19937 rng(1234u + unsigned(cores));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int run = 0; run < 20; ++run) {
    Options opt;
    opt.down_windows = 1 + run % 3;
    auto fast = make_energy_policy("queue-depth", opt);
    QuadraticQueueDepth ref(opt);
    const bool chip = run % 4 == 3;
    std::vector<int> level;  // carried between windows, as the controller does
    for (int window = 0; window < 30; ++window) {
      std::vector<double> work(static_cast<std::size_t>(cores));
      for (double& w : work) w = unit(rng);
      Observation obs = make_obs(work, 4, chip);
      if (level.empty())
        for (auto& dom : obs.domains) level.push_back(dom.level);
      for (std::size_t i = 0; i < obs.domains.size(); ++i) obs.domains[i].level = level[i];
      for (auto& c : obs.cores) {
        // Sparse busy states, so that "every other core busy" happens too.
        c.running = unit(rng) < 0.85;
        c.parked = unit(rng) < 0.05;
        c.ready = unit(rng) < 0.4 ? int(unit(rng) * 5) : 0;
        c.running_critical = unit(rng) < 0.05;
      }
      const Decision a = fast->decide(obs), b = ref.decide(obs);
      ASSERT_EQ(a.domain_level, b.domain_level)
          << cores << " cores, run " << run << ", window " << window;
      ASSERT_EQ(a.kind, b.kind);
      if (!a.domain_level.empty()) level = a.domain_level;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cores, QueueDepthEquivalence, ::testing::Values(1, 2, 5, 16, 64));

}  // namespace
}  // namespace joule::energy::test
