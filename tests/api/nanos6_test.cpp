// The Nanos6 API and ALPI (<joule/nanos6/nanos6.h>, <joule/alpi.h>):
// blocking and unblocking from a task, from a thread and before the block;
// polling services; event counters holding a successor; spawn; CPU counts.
// Swept over 1 (serial inline mode on: the first call must end it), 2 and
// 4 workers on a 2-CPU machine.
#include <joule/alpi.h>
#include <joule/nanos6/nanos6.h>
#include <joule/nanos6/nanos_omp.h>
#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>

#include "runtime_sweep.hpp"

namespace {

using namespace joule_test;

class Nanos6 : public testing::TestWithParam<int> {
 protected:
  void SetUp() override { rt_ = start_serial_at_one(GetParam()); }
  std::unique_ptr<joule::runtime> rt_;
};

TEST_P(Nanos6, CpuCounts) {
  EXPECT_EQ(nanos6_get_num_cpus(), unsigned(GetParam()));
  EXPECT_EQ(nanos_get_num_cpus(), unsigned(GetParam()));
  EXPECT_GE(nanos6_get_total_num_cpus(), unsigned(GetParam()));
  uint64_t n = 0;
  ASSERT_EQ(alpi_cpu_count(&n), ALPI_SUCCESS);
  EXPECT_EQ(n, uint64_t(GetParam()));
  // The main thread is worker 0 and counts as inside a task (under OmpSs-2
  // main is one); a thread that runs no task and no worker is outside.
  ASSERT_EQ(alpi_cpu_logical_id(&n), ALPI_SUCCESS);
  EXPECT_EQ(n, 0u);
  int outside = ALPI_SUCCESS;
  std::thread([&] { outside = alpi_cpu_logical_id(&n); }).join();
  EXPECT_EQ(outside, ALPI_ERR_OUTSIDE_TASK);
  std::atomic<long> vcpu{-1}, scpu{-1};
  joule::spawn({}, [&] {
    vcpu = nanos6_get_current_virtual_cpu();
    scpu = nanos6_get_current_system_cpu();
  });
  joule::taskwait();
  EXPECT_GE(vcpu.load(), 0);
  EXPECT_LT(vcpu.load(), GetParam());
  EXPECT_GE(scpu.load(), 0);
}

// One node and one team: the cluster queries are constants, every
// distribution policy gives the process's own memory, and the Nanos++
// thread calls answer with the workers; asking for another team size
// leaves it as it is, with at most one warning per process.
TEST_P(Nanos6, ClusterApiAndNanosThreadCalls) {
  EXPECT_EQ(nanos6_in_cluster_mode(), 0);
  EXPECT_EQ(nanos6_is_master_node(), 1);
  EXPECT_EQ(nanos6_get_cluster_node_id(), 0);
  EXPECT_EQ(nanos6_get_num_cluster_nodes(), 1);
  size_t dims[1] = {16};
  for (nanos6_data_distribution_t p :
       {nanos6_equpart_distribution, nanos6_block_distribution, nanos6_cyclic_distribution}) {
    auto* d = static_cast<char*>(nanos6_dmalloc(256, p, p == nanos6_equpart_distribution ? 0 : 1,
                                                p == nanos6_equpart_distribution ? nullptr : dims));
    ASSERT_NE(d, nullptr);
    std::memset(d, 7, 256);  // all of it is writable memory (ASan would say otherwise)
    nanos6_dfree(d, 256);
  }
  auto* l = static_cast<char*>(nanos6_lmalloc(100));
  ASSERT_NE(l, nullptr);
  std::memset(l, 1, 100);
  nanos6_lfree(l, 100);
  EXPECT_EQ(nanos_omp_get_num_threads(), GetParam());
  EXPECT_EQ(nanos_omp_get_max_threads(), GetParam());
  std::atomic<int> thread{-1};
  joule::spawn({}, [&] { thread = nanos_omp_get_thread_num(); });
  joule::taskwait();
  EXPECT_GE(thread.load(), 0);
  EXPECT_LT(thread.load(), GetParam());
  testing::internal::CaptureStderr();
  nanos_omp_set_num_threads(GetParam());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  testing::internal::CaptureStderr();
  nanos_omp_set_num_threads(GetParam() + 1);
  nanos_omp_set_num_threads(GetParam() + 2);
  const std::string warned = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warned.find("nanos_omp_set_num_threads"), warned.rfind("nanos_omp_set_num_threads"))
      << warned;
  EXPECT_EQ(nanos_omp_get_num_threads(), GetParam());
}

// A blocked task frees its thread: its child, created just before the
// block and the only one that can unblock it, still runs, whatever the
// worker count (with one, on the blocked task's own stack).
TEST_P(Nanos6, UnblockFromAnotherTask) {
  std::atomic<int> order{0};
  nanos6_get_num_cpus();  // the first call ends the serial inline mode
  joule::spawn({}, [&] {
    void* me = nanos6_get_current_blocking_context();
    joule::spawn({}, [&order, me] {
      order.store(1);
      nanos6_unblock_task(me);
    });
    nanos6_block_current_task(me);
    order.store(order.load() * 10 + 2);
  });
  joule::taskwait();
  EXPECT_EQ(order.load(), 12);
}

// At one worker the task runs inline (created before any Nanos6 call) and
// the spawn returns only after it, so the unblocking thread starts first.
// Its waits are bounded: a task that never publishes itself fails the test.
TEST_P(Nanos6, UnblockFromThreadBeforeAndAfterBlock) {
  for (bool early : {true, false}) {
    std::atomic<void*> ctx{nullptr};
    std::atomic<bool> unblocked{false}, resumed{false};
    std::thread t([&] {
      for (int i = 0; i < 5000 && !ctx.load(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ASSERT_NE(ctx.load(), nullptr) << (early ? "early" : "late");
      if (!early) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      EXPECT_EQ(alpi_task_unblock(static_cast<alpi_task*>(ctx.load())), ALPI_SUCCESS);
      unblocked.store(true);
    });
    joule::spawn({}, [&] {
      alpi_task* self = nullptr;
      ASSERT_EQ(alpi_task_self(&self), ALPI_SUCCESS);
      ASSERT_NE(self, nullptr);
      ctx.store(self);
      if (early)
        while (!unblocked.load()) std::this_thread::yield();
      ASSERT_EQ(alpi_task_block(self), ALPI_SUCCESS);
      resumed.store(true);
    });
    joule::taskwait();
    t.join();
    EXPECT_TRUE(resumed.load()) << (early ? "early" : "late");
  }
}

TEST_P(Nanos6, BlockRejectsBadCalls) {
  // The main thread runs main()'s task (OmpSs-2); another thread outside
  // any task has none.
  alpi_task* self = nullptr;
  ASSERT_EQ(alpi_task_self(&self), ALPI_SUCCESS);
  EXPECT_NE(self, nullptr);
  EXPECT_EQ(alpi_task_block(nullptr), ALPI_ERR_PARAMETER);
  int dummy = 0;
  auto* other = reinterpret_cast<alpi_task*>(&dummy);
  EXPECT_EQ(alpi_task_block(other), ALPI_ERR_PARAMETER);  // not the calling task
  EXPECT_EQ(alpi_task_suspend(nullptr), ALPI_ERR_PARAMETER);
  std::thread([&] {
    alpi_task* none = reinterpret_cast<alpi_task*>(1);
    EXPECT_EQ(alpi_task_self(&none), ALPI_SUCCESS);
    EXPECT_EQ(none, nullptr);
    EXPECT_EQ(alpi_task_block(other), ALPI_ERR_OUTSIDE_TASK);
    EXPECT_EQ(alpi_task_suspend(other), ALPI_ERR_OUTSIDE_TASK);
    EXPECT_EQ(alpi_task_suspend_mode_set(other, ALPI_SUSPEND_SUBMIT, 0), ALPI_ERR_OUTSIDE_TASK);
  }).join();
  // main()'s task cannot suspend: its thread runs it to the end.
  EXPECT_EQ(alpi_task_suspend(self), ALPI_ERR_UNKNOWN);
  EXPECT_EQ(alpi_feature_check(ALPI_FEATURE_BLOCKING | ALPI_FEATURE_EVENTS), ALPI_SUCCESS);
  EXPECT_EQ(alpi_feature_check(ALPI_FEATURE_SUSPEND), ALPI_SUCCESS);
  EXPECT_EQ(alpi_feature_check(1 << 10), ALPI_ERR_FEATURE_UNKNOWN);
  EXPECT_EQ(alpi_version_check(1, 0), ALPI_SUCCESS);
  EXPECT_EQ(alpi_version_check(2, 0), ALPI_ERR_VERSION);
  int major = 0, minor = 0;
  ASSERT_EQ(alpi_version_get(&major, &minor), ALPI_SUCCESS);
  EXPECT_EQ(major, ALPI_VERSION_MAJOR);
  char name[16];
  int len = 0;
  ASSERT_EQ(alpi_info_get(ALPI_INFO_RUNTIME_NAME, name, sizeof name, &len), ALPI_SUCCESS);
  EXPECT_STREQ(name, "joule");
  EXPECT_STRNE(alpi_error_string(ALPI_ERR_OUTSIDE_TASK), "Error code not recognized");
}

struct Poll {
  std::atomic<int> calls{0};
  int stop_at = 0;
  std::atomic<void*> blocked{nullptr};  // unblocked by the last call
};

int poll_fn(void* p) {
  auto* s = static_cast<Poll*>(p);
  if (++s->calls < s->stop_at) return 0;
  if (void* t = s->blocked.exchange(nullptr)) nanos6_unblock_task(t);
  return 1;
}

// The service runs until it says it is done, and never after. It unblocks
// a task, as a task-aware MPI layer does: with one worker only the blocked
// task's own helping wait can run it. A watchdog unblocks the task after
// 5 s so a service that never runs fails the test instead of hanging it.
TEST_P(Nanos6, PollingServiceRunsUntilDone) {
  Poll p;
  p.stop_at = 50;
  std::atomic<bool> registered{false};
  joule::spawn({}, [&] {
    p.blocked.store(nanos6_get_current_blocking_context());
    nanos6_register_polling_service("test", &poll_fn, &p);
    registered.store(true);
    nanos6_block_current_task(nanos6_get_current_blocking_context());
  });
  std::thread watchdog([&] {
    for (int i = 0; i < 5000 && (!registered.load() || p.blocked.load()); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (void* t = p.blocked.exchange(nullptr)) nanos6_unblock_task(t);
  });
  joule::taskwait();
  watchdog.join();
  EXPECT_EQ(p.calls.load(), 50);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(p.calls.load(), 50);
}

TEST_P(Nanos6, PollingServiceUnregistered) {
  Poll p;
  p.stop_at = 1 << 30;
  nanos6_register_polling_service("forever", &poll_fn, &p);
  joule::spawn({}, [] { std::this_thread::sleep_for(std::chrono::milliseconds(5)); });
  joule::taskwait();
  for (int i = 0; i < 2000 && p.calls.load() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  nanos6_unregister_polling_service("forever", &poll_fn, &p);
  const int seen = p.calls.load();
  EXPECT_GT(seen, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(p.calls.load(), seen);
}

// A task's events hold its successor until another thread decreases them
// to zero; the body itself returned long before.
TEST_P(Nanos6, EventsDelaySuccessor) {
  nanos6_get_num_cpus();
  int x = 0;
  std::atomic<alpi_task*> handle{nullptr};
  std::atomic<bool> body_done{false}, decreased{false}, successor_early{false};
  std::atomic<bool> successor_ran{false};
  joule::spawn({joule::out(x)}, [&] {
    alpi_task* self = nullptr;
    alpi_task_self(&self);
    ASSERT_EQ(alpi_task_events_increase(self, 2), ALPI_SUCCESS);
    uint64_t has = 0;
    alpi_task_events_test(self, &has);
    EXPECT_EQ(has, 1u);
    handle.store(self);
    body_done.store(true);
  });
  joule::spawn({joule::in(x)}, [&] {
    successor_early.store(!decreased.load());
    successor_ran.store(true);
  });
  std::thread t([&] {
    while (!body_done.load()) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(alpi_task_events_decrease(handle.load(), 1), ALPI_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(successor_ran.load());
    decreased.store(true);
    EXPECT_EQ(alpi_task_events_decrease(handle.load(), 1), ALPI_SUCCESS);
  });
  joule::taskwait();
  t.join();
  EXPECT_TRUE(successor_ran.load());
  EXPECT_FALSE(successor_early.load());
}

void spawned_body(void* p) { static_cast<std::atomic<int>*>(p)->fetch_add(1); }
void spawned_done(void* p) { static_cast<std::atomic<int>*>(p)->fetch_add(10); }

TEST_P(Nanos6, SpawnRunsBodyThenCallback) {
  std::atomic<int> body{0}, done{0};
  for (int i = 0; i < 8; ++i)
    ASSERT_EQ(alpi_task_spawn(&spawned_body, &body, &spawned_done, &done, "spawned", nullptr),
              ALPI_SUCCESS);
  joule::spawn({}, [&] {  // from inside a task too: independent of it
    alpi_task_spawn(&spawned_body, &body, &spawned_done, &done, nullptr, nullptr);
  });
  joule::taskwait();  // independent tasks are not its children: they may still run
  // ALPI's wait lets them run on this CPU meanwhile (one worker: only here).
  for (int i = 0; i < 5000 && done.load() < 90; ++i) alpi_task_waitfor_ns(1'000'000, nullptr);
  EXPECT_EQ(body.load(), 9);
  EXPECT_EQ(done.load(), 90);
  EXPECT_EQ(alpi_task_spawn(nullptr, nullptr, &spawned_done, nullptr, nullptr, nullptr),
            ALPI_ERR_PARAMETER);
}

// ALPI's suspend, as TAMPI's polling task uses it: the body runs again
// (at once, after a time, once its events are 0) until it returns without
// suspending, and only then does the task complete and release its
// successor. Its children of every run are waited for.
TEST_P(Nanos6, SuspendRunsTheBodyAgain) {
  nanos6_get_num_cpus();  // the first call ends the serial inline mode
  for (alpi_suspend_mode_t mode :
       {ALPI_SUSPEND_SUBMIT, ALPI_SUSPEND_TIMEOUT_SUBMIT, ALPI_SUSPEND_EVENT_SUBMIT}) {
    struct State {
      int runs = 0;
      std::atomic<int> children{0};
      std::atomic<alpi_task*> self{nullptr};
      std::chrono::steady_clock::time_point last{};
      std::int64_t shortest_gap_ns = INT64_MAX;
    } s;
    std::atomic<int> seen_by_successor{-1};
    std::atomic<int> seen_children{-1};
    constexpr int kRuns = 5;
    constexpr std::uint64_t kTimeoutNs = 2'000'000;
    int token = 0;
    joule::spawn({joule::out(token)}, [&s, mode] {
      const auto now = std::chrono::steady_clock::now();
      if (s.runs > 0) s.shortest_gap_ns = std::min(s.shortest_gap_ns, (now - s.last).count());
      s.last = now;
      joule::spawn({}, [&s] { s.children.fetch_add(1); });
      if (++s.runs == kRuns) return;  // the last run: the task completes
      alpi_task* self = nullptr;
      ASSERT_EQ(alpi_task_self(&self), ALPI_SUCCESS);
      ASSERT_EQ(alpi_task_suspend_mode_set(self, mode, kTimeoutNs), ALPI_SUCCESS);
      if (mode == ALPI_SUSPEND_EVENT_SUBMIT) {
        // An event another thread releases later: the body runs again only then.
        ASSERT_EQ(alpi_task_events_increase(self, 1), ALPI_SUCCESS);
        std::thread([self] {
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          alpi_task_events_decrease(self, 1);
        }).detach();
      }
      ASSERT_EQ(alpi_task_suspend(self), ALPI_SUCCESS);
    });
    joule::spawn({joule::in(token)}, [&] {
      seen_by_successor = s.runs;
      seen_children = s.children.load();
    });
    joule::taskwait();
    EXPECT_EQ(s.runs, kRuns) << mode;
    EXPECT_EQ(seen_by_successor.load(), kRuns) << mode;
    EXPECT_EQ(seen_children.load(), kRuns) << mode;
    if (mode != ALPI_SUSPEND_SUBMIT) EXPECT_GE(s.shortest_gap_ns, 1'900'000) << mode;
  }
}

// NONE: the task completes when its body returns, as if never suspended.
TEST_P(Nanos6, SuspendModeNoneCompletes) {
  nanos6_get_num_cpus();
  std::atomic<int> runs{0};
  joule::spawn({}, [&] {
    runs.fetch_add(1);
    alpi_task* self = nullptr;
    ASSERT_EQ(alpi_task_self(&self), ALPI_SUCCESS);
    ASSERT_EQ(alpi_task_suspend_mode_set(self, ALPI_SUSPEND_NONE, 0), ALPI_SUCCESS);
    ASSERT_EQ(alpi_task_suspend(self), ALPI_SUCCESS);
  });
  joule::taskwait();
  EXPECT_EQ(runs.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(Workers, Nanos6, testing::Values(1, 2, 4),
                         [](const auto& info) { return std::to_string(info.param) + "workers"; });

}  // namespace
