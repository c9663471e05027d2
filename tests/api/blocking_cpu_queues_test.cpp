// One thread per CPU at a time while tasks block and resume
// (docs/internals.md, "Blocked tasks"): a task-aware layer may keep a queue
// per CPU id with a single producer, the thread on that CPU, and a polling
// service that drains the queues and unblocks the tasks whose tickets it
// finds (the shape of TAMPI's blocking mode). Each task pushes a ticket into
// its CPU's queue and blocks, many rounds in a row, with more tasks than
// workers. If a resumed task ran while the spare standing in for it still
// ran another task, two threads would answer the same CPU id, both would
// push into one single-producer ring, a ticket would be lost and its task
// would never resume: the test counts such overlaps and, should a ticket be
// lost, the watchdog ends the hang with the count. 1, 2, 4 and 8 workers
// on a 2-CPU machine.
#include <joule/alpi.h>
#include <joule/nanos6/nanos6.h>
#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "hang_watchdog.hpp"
#include "runtime_sweep.hpp"

namespace {

using namespace joule_test;

constexpr std::uint32_t kRing = 1024;  // more than the tickets in flight
constexpr int kRounds = 30;

// A single-producer ring: the producer reads and writes `head` without a
// read-modify-write, as such rings do, so two producers lose a ticket.
struct CpuQueue {
  alignas(64) std::atomic<int> producing{0};
  std::atomic<std::uint32_t> head{0};
  alignas(64) std::atomic<std::uint32_t> tail{0};  // the service's
  std::array<std::atomic<alpi_task*>, kRing> ring{};
};

struct Board {
  explicit Board(int workers) : queues(std::size_t(workers)) {}
  std::vector<CpuQueue> queues;
  std::atomic<int> overlaps{0};
  std::atomic<int> bad_ids{0};
  std::atomic<int> rounds{0};
};

void busy_for(std::chrono::microseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

void push(Board& b, alpi_task* self) {
  std::uint64_t cpu = 0;
  if (alpi_cpu_logical_id(&cpu) != ALPI_SUCCESS || cpu >= b.queues.size()) {
    b.bad_ids.fetch_add(1);
    cpu = 0;
  }
  CpuQueue& q = b.queues[std::size_t(cpu)];
  if (q.producing.exchange(1, std::memory_order_acq_rel) != 0) b.overlaps.fetch_add(1);
  const std::uint32_t h = q.head.load(std::memory_order_relaxed);
  busy_for(std::chrono::microseconds(3));  // the producer's work: a window to overlap in
  q.ring[h % kRing].store(self, std::memory_order_relaxed);
  q.head.store(h + 1, std::memory_order_release);
  q.producing.store(0, std::memory_order_release);
}

// The consumer: unblocks every task whose ticket it finds.
int drain(void* data) {
  Board& b = *static_cast<Board*>(data);
  for (CpuQueue& q : b.queues) {
    const std::uint32_t h = q.head.load(std::memory_order_acquire);
    for (std::uint32_t t = q.tail.load(std::memory_order_relaxed); t != h; ++t) {
      alpi_task* task = q.ring[t % kRing].load(std::memory_order_relaxed);
      q.tail.store(t + 1, std::memory_order_relaxed);
      EXPECT_EQ(alpi_task_unblock(task), ALPI_SUCCESS);
    }
  }
  return 0;
}

void blocking_task(Board& b) {
  alpi_task* self = nullptr;
  ASSERT_EQ(alpi_task_self(&self), ALPI_SUCCESS);
  for (int r = 0; r < kRounds; ++r) {
    push(b, self);
    ASSERT_EQ(alpi_task_block(self), ALPI_SUCCESS);
    b.rounds.fetch_add(1);
  }
}

std::string progress(const Board& b, int expected) {
  return "blocking_cpu_queues: " + std::to_string(b.rounds.load()) + " of " +
         std::to_string(expected) + " rounds, " + std::to_string(b.overlaps.load()) +
         " pushes overlapped on one CPU id (a lost ticket)";
}

class BlockingCpuQueues : public testing::TestWithParam<int> {
 protected:
  void SetUp() override { rt_ = start_serial_at_one(GetParam()); }
  std::unique_ptr<joule::runtime> rt_;
};

TEST_P(BlockingCpuQueues, OneProducerPerCpuId) {
  const int workers = GetParam();
  const int tasks = 4 * workers + 3;
  Board b(workers);
  HangWatchdog dog(90, [&b, tasks] { return progress(b, tasks * kRounds); });
  nanos6_register_polling_service("cpu queues", &drain, &b);
  for (int i = 0; i < tasks; ++i) joule::spawn({}, [&b] { blocking_task(b); });
  joule::taskwait();
  nanos6_unregister_polling_service("cpu queues", &drain, &b);
  EXPECT_EQ(b.rounds.load(), tasks * kRounds);
  EXPECT_EQ(b.overlaps.load(), 0);
  EXPECT_EQ(b.bad_ids.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Workers, BlockingCpuQueues, testing::Values(1, 2, 4, 8),
                         [](const testing::TestParamInfo<int>& i) {
                           return std::to_string(i.param) + "w";
                         });

}  // namespace
