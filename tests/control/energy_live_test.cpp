// The energy controller in a live runtime with emulated DVFS on 2 workers:
// an iterative 2:1 imbalance slows the light core and keeps the heavy one
// at fmax at (about) the same time per iteration; a chain beside side tasks
// slows the side core, never the chain's; policy none changes nothing; bad
// configurations are refused or warned about. The VM is shared: assertions
// are generous ratios within one run, and times are medians per iteration.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "clock.hpp"
#include "joule/joule.hpp"
#include "log.hpp"
#include "platform.hpp"
#include "test_support.hpp"

namespace joule::platform {
namespace {

using Clock = std::chrono::steady_clock;
using Settings = std::initializer_list<std::pair<std::string, std::string>>;

// Work measured on the clock: a block is the same work at every run (the
// emulation stretches it on a slowed core after the body).
void spin_us(long us) {
  const auto until = Clock::now() + std::chrono::microseconds(us);
  while (Clock::now() < until) {
  }
}

// Share of the run a worker's CPU spent at its top P-state.
double share_at_fmax(Platform& p, int worker) {
  Dvfs& d = p.dvfs();
  const int cpu = p.worker_cpu(worker);
  const auto res = d.residency(d.domain_of(cpu), core::now_ns());
  double total = 0;
  for (auto v : res) total += double(v);
  return total > 0 ? double(res.back()) / total : 1.0;
}

struct IterRun {
  double median_s = 0;  // per iteration
  double fmax_share[2] = {1, 1};
};

// Three equal keyed blocks on two workers: keys 0 and 1 on worker 0, key 2
// on worker 1 (2:1; AffinityMap::spread), joule::iteration_boundary() after
// each iteration.
IterRun run_iterative(const std::string& policy, int iterations, long block_us) {
  IterRun out;
  joule::runtime rt(
      {{"JOULE_DVFS", "emulated"}, {"JOULE_WORKERS", "2"}, {"JOULE_ENERGY_POLICY", policy}});
  Platform* p = current_platform();
  EXPECT_NE(p, nullptr);
  if (!p) return out;
  std::vector<double> times;
  for (int it = 0; it < iterations; ++it) {
    const auto t0 = Clock::now();
    for (std::uint64_t key = 0; key < 3; ++key)
      joule::spawn([block_us] { spin_us(block_us); }, joule::task_options{.affinity = key});
    joule::taskwait();
    joule::iteration_boundary();
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(times.begin() + iterations / 4, times.end());  // the first quarter settles
  out.median_s = times[std::size_t(iterations / 4 + (iterations - iterations / 4) / 2)];
  out.fmax_share[0] = share_at_fmax(*p, 0);
  out.fmax_share[1] = share_at_fmax(*p, 1);
  return out;
}

// The time check compares medians of interleaved runs; on a loaded VM a
// slowed core's emulated stretch competes for the CPUs, so it gets three
// tries.
TEST(EnergyLive, IterativeImbalanceSlowsTheLightCoreOnly) {
  IterRun none, fg;
  for (int attempt = 0; attempt < 3; ++attempt) {
    none = run_iterative("none", 60, 2000);
    fg = run_iterative("fg-energylb", 60, 2000);
    if (fg.median_s <= none.median_s * 1.05 + 0.0005) break;
  }
  EXPECT_GT(fg.fmax_share[0], 0.8) << "the heavy core stays at fmax";
  EXPECT_LT(fg.fmax_share[1], 0.5) << "the light core is slowed most of the run";
  EXPECT_EQ(none.fmax_share[1], 1.0);
  EXPECT_LE(fg.median_s, none.median_s * 1.05 + 0.0005)
      << "fg-energylb " << fg.median_s << " s vs none " << none.median_s << " s per iteration";
}

TEST(EnergyLive, AutoPicksTheIterativePolicyForKeyedIterations) {
  testing::internal::CaptureStderr();
  {
    joule::runtime rt({{"JOULE_DVFS", "emulated"}, {"JOULE_WORKERS", "2"}, {"JOULE_REPORT", "1"}});
    for (int it = 0; it < 20; ++it) {
      for (std::uint64_t key = 0; key < 3; ++key)
        joule::spawn([] { spin_us(1000); }, joule::task_options{.affinity = key});
      joule::taskwait();
      joule::iteration_boundary();
    }
  }
  const std::string err = testing::internal::GetCapturedStderr();
  for (const char* s : {"== energy policy ==", "then fg-energylb at iteration", "decisions:",
                        "time at each P-state per core", "estimated saving", "policy overhead"})
    EXPECT_NE(err.find(s), std::string::npos) << s << "\n" << err;
}

// A chain of dependent steps; each releases a side task of half its length
// (no successors). The chain stays on one worker (each step is the previous
// one's immediate successor), which one depends on who took the first step;
// the side tasks run on the other: that core has slack.
TEST(EnergyLive, QueueDepthSlowsTheSideCoreNeverTheChain) {
  joule::runtime rt(
      {{"JOULE_DVFS", "emulated"}, {"JOULE_WORKERS", "2"}, {"JOULE_ENERGY_POLICY", "queue-depth"}});
  Platform* p = current_platform();
  ASSERT_NE(p, nullptr);
  int chain = 0;
  constexpr int kSteps = 600;
  std::vector<int> token(kSteps, 0), ran_on(kSteps, -1);
  auto side = [&](int i) {
    joule::spawn(
        {joule::in(token[std::size_t(i)])}, [] { spin_us(500); },
        joule::task_options{.affinity = 1});
  };
  for (int i = 0; i < kSteps; ++i) {
    int* where = &ran_on[std::size_t(i)];
    joule::spawn(
        {joule::inout(chain), joule::out(token[std::size_t(i)])},
        [where] {
          *where = joule::worker_id();
          spin_us(1000);
        },
        joule::task_options{.affinity = 0});
    if (i > 0) side(i - 1);
  }
  side(kSteps - 1);
  joule::taskwait();
  const int on1 = int(std::count(ran_on.begin(), ran_on.end(), 1));
  const int chain_core = on1 > kSteps / 2 ? 1 : 0;
  EXPECT_GT(std::max(on1, kSteps - on1), kSteps * 9 / 10) << "the chain stays on one core";
  EXPECT_GT(share_at_fmax(*p, chain_core), 0.9) << "the chain's core stays at fmax";
  EXPECT_LT(share_at_fmax(*p, 1 - chain_core), 0.7) << "the side core is slowed";
}

// What libjoule-mpi does around a blocking call, from worker 0's thread: a
// wait longer than the slack runs the core at fmin until the call returns;
// a short one changes nothing.
TEST(EnergyLive, MpiSlackSlowsALongBlockingCallOnly) {
  joule::runtime rt({{"JOULE_DVFS", "emulated"},
                     {"JOULE_WORKERS", "2"},
                     {"JOULE_ENERGY_POLICY", "mpi-slack"},
                     {"JOULE_ENERGY_MPI_SLACK_US", "500"}});
  Platform* p = current_platform();
  ASSERT_NE(p, nullptr);
  const int cpu = p->worker_cpu(0);
  const std::uint32_t fmax = p->pstates(cpu).back(), fmin = p->pstates(cpu).front();
  ASSERT_EQ(p->frequency(cpu), fmax);
  joule_energy_mpi_enter();
  spin_us(100);
  joule_energy_mpi_leave();
  EXPECT_EQ(p->frequency(cpu), fmax) << "a short call is not slowed";
  joule_energy_mpi_enter();
  EXPECT_TRUE(
      joule_test::eventually([&] { return p->frequency(cpu) == fmin; }, std::chrono::seconds(5)));
  joule_energy_mpi_leave();
  EXPECT_EQ(p->frequency(cpu), fmax) << "back when the call returns";
}

// CPU masks with a power model where a sleeping core is free and busy power
// is mostly static (so one core at fmax beats two slower ones). A chain of
// 300 1-ms steps, then a burst of 400 independent 1-ms tasks; returns how
// many of the burst ran on worker 1, and whether any chain step saw worker
// 1's CPU lent (the stderr report goes to *err).
struct MaskRun {
  int burst_on_worker1 = 0;
  bool saw_lent = false;
  std::string err;
};

MaskRun run_masks(std::initializer_list<std::pair<std::string, std::string>> extra) {
  MaskRun out;
  testing::internal::CaptureStderr();
  {
    std::vector<std::pair<std::string, std::string>> settings = {
        {"JOULE_DVFS", "emulated"},
        {"JOULE_WORKERS", "2"},
        {"JOULE_ENERGY_POLICY", "queue-depth"},
        {"JOULE_POWER_IDLE", "0"},
        {"JOULE_POWER_BUSY", "1.2:30,2.4:31"},
        {"JOULE_REPORT", "1"}};
    settings.insert(settings.end(), extra.begin(), extra.end());
    // joule::runtime takes a braced list only: start and stop it by hand.
    joule::detail::runtime_start(settings.data(), settings.size());
    const int cpu1 = current_platform() ? current_platform()->worker_cpu(1) : 1;
    std::atomic<bool> saw_lent{false};
    int chain = 0;
    for (int i = 0; i < 300; ++i)
      joule::spawn({joule::inout(chain)}, [&saw_lent, cpu1] {
        spin_us(1000);
        joule_cpu_info_t info{};
        if (joule_get_cpu_info(cpu1, &info) == JOULE_OK && info.state == JOULE_CPU_IDLE)
          saw_lent.store(true);
      });
    joule::taskwait();
    std::vector<int> ran(400, -1);
    for (int& r : ran)
      joule::spawn([&r] {
        r = joule::worker_id();
        spin_us(1000);
      });
    joule::taskwait();
    out.burst_on_worker1 = int(std::count(ran.begin(), ran.end(), 1));
    out.saw_lent = saw_lent.load();
    joule::detail::runtime_stop();
  }
  out.err = testing::internal::GetCapturedStderr();
  return out;
}

// A chain alone parks worker 1; the burst brings it back.
TEST(EnergyLive, MasksParkASurplusCoreAndBringItBack) {
  const MaskRun r = run_masks({});
  EXPECT_NE(r.err.find("cores: fewest kept 1"), std::string::npos) << r.err;
  EXPECT_GT(r.burst_on_worker1, 40) << "worker 1 came back for the independent tasks\n" << r.err;
}

// With lending on, the rested core is lent (its state in the CPU table turns
// idle) although idle workers spin for 1 s before lending by themselves;
// queued work brings it back.
TEST(EnergyLive, MasksLendTheRestedCoreWithLending) {
  const MaskRun r = run_masks({{"JOULE_LENDING", "local"}, {"JOULE_SPIN_US", "1000000"}});
  EXPECT_TRUE(r.saw_lent) << "the rested core was never lent\n" << r.err;
  EXPECT_GT(r.burst_on_worker1, 40) << "worker 1 came back for the independent tasks\n" << r.err;
}

TEST(EnergyLive, PolicyNoneChangesNothing) {
  testing::internal::CaptureStderr();
  {
    const IterRun none = run_iterative("none", 20, 1000);
    EXPECT_EQ(none.fmax_share[0], 1.0);
    EXPECT_EQ(none.fmax_share[1], 1.0);
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("warning"), std::string::npos) << err;
}

TEST(EnergyLive, UnknownPolicyIsAConfigurationErrorListingTheNames) {
  try {
    joule::runtime rt({{"JOULE_DVFS", "emulated"}, {"JOULE_ENERGY_POLICY", "fastest"}});
    FAIL() << "an unknown policy must not start";
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_CONFIG);
    const std::string what = e.what();
    for (const char* s : {"JOULE_ENERGY_POLICY", "fastest", "fg-energylb", "queue-depth", "none"})
      EXPECT_NE(what.find(s), std::string::npos) << s << ": " << what;
  }
}

TEST(EnergyLive, PolicyWithoutDvfsWarnsOnceAndRunsAsNone) {
  core::reset_warn_once();
  testing::internal::CaptureStderr();
  {
    joule::runtime rt({{"JOULE_DVFS", "none"},
                       {"JOULE_WORKERS", "2"},
                       {"JOULE_ENERGY_POLICY", "fg-energylb"},
                       {"JOULE_REPORT", "1"}});
    for (int it = 0; it < 3; ++it) {
      joule::spawn([] { spin_us(100); }, joule::task_options{.affinity = 1});
      joule::taskwait();
      joule::iteration_boundary();
    }
  }
  const std::string err = testing::internal::GetCapturedStderr();
  const auto first = err.find("JOULE_ENERGY_POLICY=fg-energylb needs frequencies");
  EXPECT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("JOULE_ENERGY_POLICY=fg-energylb needs", first + 1), std::string::npos) << err;
  EXPECT_NE(err.find("policy: none"), std::string::npos) << err;
}

TEST(EnergyLive, PolicyWithoutPlatformWarnsToo) {
  core::reset_warn_once();
  testing::internal::CaptureStderr();
  {
    joule::runtime rt({{"JOULE_DVFS", "none"}, {"JOULE_ENERGY_POLICY", "queue-depth"}});
    joule::spawn([] { spin_us(100); });
    joule::taskwait();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("JOULE_ENERGY_POLICY=queue-depth needs frequencies"), std::string::npos)
      << err;
}

}  // namespace
}  // namespace joule::platform
