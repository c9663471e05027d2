// Who does the energy controller's work (docs/internals.md, "The energy
// controller's threads"): a decision runs on a worker that claims it at a
// task end; a frequency is written by the worker owning the domain at its
// next task boundary, or by the deciding worker, never by the creator; the
// creator's iteration boundary returns while a decision is in progress;
// and at stop every CPU is back at its start frequency (a fake cpufreq tree
// is exactly as found).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "clock.hpp"
#include "controller.hpp"
#include "fake_tree.hpp"
#include "joule/joule.hpp"
#include "platform.hpp"
#include "restore_guard.hpp"

namespace joule::control {
namespace {

using Clock = std::chrono::steady_clock;
using Settings = std::initializer_list<std::pair<std::string, std::string>>;

void spin_us(long us) {
  const auto until = Clock::now() + std::chrono::microseconds(us);
  while (Clock::now() < until) {
  }
}

Controller* controller() {
  platform::Platform* p = platform::current_platform();
  return p ? dynamic_cast<Controller*>(p->listener()) : nullptr;
}

// The creator (this thread, worker 0) only spawns short tasks with gaps and
// never runs one, so worker 1 has slack and queue-depth lowers its domain
// (and the creator's idle one). Every frequency write seen while it runs
// must come from worker 1's thread.
struct WriterRun {
  std::set<long> writers;  // threads that wrote a lowered domain
  long task_thread = 0;    // worker 1's thread
  std::uint64_t by_owner = 0, decisions = 0;
  bool lowered[2] = {false, false};
};

WriterRun run_with_gaps(platform::Platform& p) {
  WriterRun out;
  std::atomic<long> tid{0};
  std::atomic<int> done{0};
  constexpr int kTasks = 600;
  platform::Dvfs& d = p.dvfs();
  const int top = int(d.pstates(p.worker_cpu(1)).size()) - 1;
  for (int i = 0; i < kTasks; ++i) {
    joule::spawn({}, [&] {
      tid.store(long(::gettid()));
      spin_us(20);
      done.fetch_add(1);
    });
    spin_us(300);
    for (int w = 0; w < 2; ++w) {
      const int cpu = p.worker_cpu(w), dom = d.domain_of(cpu);
      if (dom < 0 || d.level(cpu) == top) continue;
      out.lowered[w] = true;
      out.writers.insert(d.last_writer(dom));
    }
  }
  // No taskwait: it would run tasks here. Bounded: a parked worker 1
  // (masks are off below, but never hang) is left to taskwait.
  const auto give_up = Clock::now() + std::chrono::seconds(20);
  while (done.load() < kTasks && Clock::now() < give_up) std::this_thread::yield();
  out.task_thread = tid.load();
  if (Controller* c = controller()) {
    out.decisions = c->decisions();
    std::ostringstream os;
    c->report(os);
    const std::string r = os.str();
    const auto at = r.find("frequency applies: ");
    if (at != std::string::npos) {
      const auto open = r.find('(', at);
      out.by_owner = std::stoull(r.substr(open + 1));
    }
  }
  return out;
}

TEST(ControllerThreads, FrequencyIsWrittenByWorkersNeverByTheCreator) {
  joule::runtime rt({{"JOULE_DVFS", "emulated"},
                     {"JOULE_WORKERS", "2"},
                     {"JOULE_ENERGY_POLICY", "queue-depth"},
                     {"JOULE_ENERGY_MASKS", "0"},  // worker 1 must keep running tasks
                     {"JOULE_ENERGY_WINDOW_MS", "5"}});
  platform::Platform* p = platform::current_platform();
  ASSERT_NE(p, nullptr);
  ASSERT_NE(controller(), nullptr);
  const WriterRun r = run_with_gaps(*p);
  joule::taskwait();
  ASSERT_GT(r.decisions, 0u);
  ASSERT_TRUE(r.lowered[0] || r.lowered[1]) << "queue-depth lowered nothing: nothing to check";
  EXPECT_EQ(r.writers.count(long(::gettid())), 0u) << "the creator wrote a frequency";
  for (long w : r.writers) EXPECT_EQ(w, r.task_thread);
  if (r.lowered[1]) EXPECT_GT(r.by_owner, 0u) << "worker 1 never applied its own domain";
}

// A decision in progress (the claim held by another thread, as a worker
// deciding holds it): the creator's iteration boundary does not wait for
// it, and the boundary it posted is decided by a worker once it is free.
TEST(ControllerThreads, IterationBoundaryReturnsWhileADecisionIsInProgress) {
  joule::runtime rt(
      {{"JOULE_DVFS", "emulated"}, {"JOULE_WORKERS", "2"}, {"JOULE_ENERGY_POLICY", "fg-energylb"}});
  Controller* c = controller();
  ASSERT_NE(c, nullptr);
  std::atomic<bool> held{false}, release{false};
  std::thread decider([&] {
    while (!c->try_claim()) std::this_thread::yield();
    held.store(true);
    const auto give_up = Clock::now() + std::chrono::seconds(20);
    while (!release.load() && Clock::now() < give_up) std::this_thread::yield();
    c->release_claim();
  });
  while (!held.load()) std::this_thread::yield();
  const std::uint64_t before = c->decisions();
  const auto t0 = Clock::now();
  for (int i = 0; i < 3; ++i) joule::iteration_boundary();
  const double took_s = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_LT(took_s, 2.0) << "iteration_boundary waited for the decision in progress";
  EXPECT_EQ(c->decisions(), before);
  release.store(true);
  decider.join();
  for (int round = 0; round < 200 && c->decisions() == before; ++round) {
    joule::spawn({}, [] { spin_us(50); });
    joule::taskwait();
  }
  EXPECT_GT(c->decisions(), before) << "the posted boundary was never decided";
}

// A fake cpufreq tree with two per-core userspace policies: queue-depth
// lowers them while the program runs, and at stop the tree is exactly as
// it was found (governor, set speed), though the last decision was low.
TEST(ControllerThreads, NoCpuIsLeftLowAtStop) {
  test::FakeTree t;
  t.add_userspace_cpu(0, "0");
  t.add_userspace_cpu(1, "1");
  const auto before = t.snapshot();
  platform::RestoreGuard::instance().set_state_dir(t.state_dir());
  bool was_low = false;
  {
    joule::runtime rt({{"JOULE_DVFS", "cpufreq"},
                       {"JOULE_SYSFS_ROOT", t.root()},
                       {"JOULE_STATE_DIR", t.state_dir()},
                       {"JOULE_WORKERS", "2"},
                       {"JOULE_ENERGY_POLICY", "queue-depth"},
                       {"JOULE_ENERGY_MASKS", "0"},
                       // The first change also saves the state file: the
                       // measured switch cost is ~1 ms, and a window must
                       // pay for it (Options::switch_payback).
                       {"JOULE_ENERGY_WINDOW_MS", "60"}});
    platform::Platform* p = platform::current_platform();
    ASSERT_NE(p, nullptr);
    if (!p->can_set_frequency()) GTEST_SKIP() << "cpufreq on the fake tree cannot set";
    const std::string speed0 = test::FakeTree::cpu_dir(0) + "/scaling_setspeed";
    const std::string speed1 = test::FakeTree::cpu_dir(1) + "/scaling_setspeed";
    for (int i = 0; i < 5000 && !was_low; ++i) {
      joule::spawn({}, [] { spin_us(20); });
      spin_us(300);
      for (const auto& f : {speed0, speed1}) {
        const std::string v = t.read(f);
        // What joule writes is a P-state of the table, nothing else. A read
        // between the truncation and the write of the first change (a
        // regular file here, unlike sysfs) sees it empty.
        if (v.empty() || v.rfind("<unsupported>", 0) == 0) continue;
        EXPECT_TRUE(v == "2400000" || v == "2000000" || v == "1600000" || v == "1200000") << v;
        was_low = was_low || v != "2400000";
      }
    }
    joule::taskwait();
  }
  EXPECT_TRUE(was_low) << "queue-depth never lowered a CPU: the stop check proves nothing";
  EXPECT_EQ(t.snapshot(), before);
}

}  // namespace
}  // namespace joule::control
