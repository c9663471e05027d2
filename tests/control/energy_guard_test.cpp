// The time guard in a live runtime (emulated DVFS, 2 workers) with another
// process on the machine: cpu_noise burns 20 % of one CPU in 1 ms bursts at
// random times, as a node's daemons or a neighbour's job do. The default
// policy on the 2:1 iterative workload must keep its time within the budget
// plus a tolerance against `none`, interleaved in the same run (medians of
// the ratios), lose less time than the same policy without the guard, and
// still save energy. Structure checks (the guard
// ran, took its baseline, reports itself, can be switched off) are not
// timing; the ratio checks are (label timing).
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "joule/joule.hpp"

extern char** environ;

namespace joule::platform {
namespace {

using Clock = std::chrono::steady_clock;

void spin_us(long us) {
  const auto until = Clock::now() + std::chrono::microseconds(us);
  while (Clock::now() < until) {
  }
}

// cpu_noise for as long as the object lives.
class Noise {
 public:
  explicit Noise(double share) {
    const std::string s = std::to_string(share);
    const char* argv[] = {JOULE_CPU_NOISE_PATH, "--share", s.c_str(), "--burst-us", "1000",
                          "--seconds",          "600",     nullptr};
    running_ =
        posix_spawn(&pid_, argv[0], nullptr, nullptr, const_cast<char**>(argv), environ) == 0;
  }
  ~Noise() {
    if (!running_) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  bool running() const { return running_; }

 private:
  pid_t pid_ = -1;
  bool running_ = false;
};

struct GuardRun {
  double time_s = 0, joules = 0;
  std::string report;
};

double number_after(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  return at == std::string::npos ? -1 : std::stod(text.substr(at + key.size()));
}

// Three equal keyed blocks on two workers per iteration (2:1), as
// energy_bench iter; the end-of-run report (JOULE_REPORT=1, on stderr at
// stop) is captured.
GuardRun run_iterative(const std::string& policy, bool guard, int iterations, long block_us) {
  GuardRun out;
  testing::internal::CaptureStderr();
  {
    joule::runtime rt({{"JOULE_DVFS", "emulated"},
                       {"JOULE_WORKERS", "2"},
                       {"JOULE_REPORT", "1"},
                       {"JOULE_ENERGY_POLICY", policy},
                       {"JOULE_ENERGY_GUARD", guard ? "1" : "0"}});
    const auto t0 = Clock::now();
    for (int it = 0; it < iterations; ++it) {
      for (std::uint64_t key = 0; key < 3; ++key)
        joule::spawn([block_us] { spin_us(block_us); }, joule::task_options{.affinity = key});
      joule::taskwait();
      joule::iteration_boundary();
    }
    out.time_s = std::chrono::duration<double>(Clock::now() - t0).count();
  }
  out.report = testing::internal::GetCapturedStderr();
  out.joules = number_after(out.report, "energy: ");
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

TEST(EnergyGuard, ReportsItsBaselineAndCanBeSwitchedOff) {
  const GuardRun on = run_iterative("auto", true, 60, 1000);
  EXPECT_NE(on.report.find("time guard: time loss"), std::string::npos) << on.report;
  EXPECT_GE(number_after(on.report, "per iteration, taken "), 1)
      << "a baseline at the top P-states";
  EXPECT_NE(on.report.find("(budget 1.0 %)"), std::string::npos);
  const GuardRun off = run_iterative("auto", false, 20, 1000);
  EXPECT_NE(off.report.find("time guard: off (JOULE_ENERGY_GUARD=0)"), std::string::npos);
}

TEST(EnergyGuard, RejectsABadSetting) {
  EXPECT_THROW(joule::runtime({{"JOULE_ENERGY_GUARD", "maybe"}}), std::exception);
}

// Interleaved triples none / auto / auto without the guard under noise;
// the medians of the ratios to none. Runs of 150 iterations, where the
// baseline and the guard's learning weigh more than in the benchmark's 400
// (guarded 1.03-1.04 here, 1.018 there; open loop 1.10 here). A slowed
// core's emulated stretch spins, so on a loaded host the bound is generous
// (1.06, still below the open loop) and the case gets three tries.
TEST(EnergyGuard, DefaultPolicyKeepsItsTimeBudgetUnderNoise) {
  Noise noise(0.2);
  ASSERT_TRUE(noise.running()) << JOULE_CPU_NOISE_PATH;
  double guarded = 0, open = 0, energy = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::vector<double> t, t_open, e;
    for (int round = 0; round < 5; ++round) {
      const GuardRun none = run_iterative("none", true, 150, 2000);
      const GuardRun on = run_iterative("auto", true, 150, 2000);
      const GuardRun off = run_iterative("auto", false, 150, 2000);
      t.push_back(on.time_s / none.time_s);
      t_open.push_back(off.time_s / none.time_s);
      e.push_back(on.joules / none.joules);
    }
    guarded = median(t), open = median(t_open), energy = median(e);
    if (guarded <= 1.06 && guarded < open && energy < 1.0) break;
  }
  EXPECT_LE(guarded, 1.06) << "budget 1 %, target 1.02, bound generous for a shared host; open "
                           << open << ", energy " << energy;
  EXPECT_LT(guarded, open) << "the guard must cost less time than the open-loop policy";
  std::printf("guarded %.4f open %.4f energy %.4f\n", guarded, open, energy);
  EXPECT_LT(energy, 1.0) << "the guarded policy still saves energy";
}

}  // namespace
}  // namespace joule::platform
