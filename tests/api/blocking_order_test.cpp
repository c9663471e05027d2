// Blocked tasks never hold each other up (docs/internals.md, "Blocked
// tasks"): N tasks, more than the workers, block, and a polling service
// unblocks them one at a time in an order of its own, the next only once
// the previous one has resumed. If a blocked task's thread ran the others
// on its stack, a task unblocked while another sits above it could not
// resume, and the service would wait forever. Through the Nanos6 API and
// through ALPI, in the order they blocked, the reverse and a shuffled one,
// at 1, 2 and 4 workers on a 2-CPU machine.
#include <joule/alpi.h>
#include <joule/nanos6/nanos6.h>
#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "hang_watchdog.hpp"
#include "runtime_sweep.hpp"

namespace {

using namespace joule_test;

enum class Api { nanos6, alpi };
enum class Order { blocked, reverse, shuffled };

// The tasks' blocking contexts in the order they blocked, and the service
// that unblocks them in `order`.
struct Board {
  int n = 0;
  Order order = Order::blocked;
  std::mutex mutex;
  std::vector<void*> contexts;  // in blocking order
  std::vector<int> plan;        // indices into contexts, set once all blocked
  std::vector<std::atomic<bool>> resumed;
  int next = 0;
  Api api = Api::nanos6;
  std::atomic<int> resumed_count{0};
  explicit Board(int count) : n(count), resumed(std::size_t(count)) {}
};

void unblock(Api api, void* ctx) {
  if (api == Api::nanos6)
    nanos6_unblock_task(ctx);
  else
    ASSERT_EQ(alpi_task_unblock(static_cast<alpi_task*>(ctx)), ALPI_SUCCESS);
}

// One unblock per call, once the one before has resumed; done (non-zero)
// after the last. Nothing of the board is touched after the last unblock:
// its task may resume at once and the test end.
int service(void* data) {
  Board& b = *static_cast<Board*>(data);
  void* ctx = nullptr;
  bool last = false;
  {
    std::lock_guard guard(b.mutex);
    if (int(b.contexts.size()) < b.n) return 0;
    if (b.plan.empty()) {
      for (int i = 0; i < b.n; ++i) b.plan.push_back(i);
      if (b.order == Order::reverse) std::reverse(b.plan.begin(), b.plan.end());
      if (b.order == Order::shuffled) std::shuffle(b.plan.begin(), b.plan.end(), std::mt19937(7));
    }
    if (b.next > 0 && !b.resumed[std::size_t(b.plan[std::size_t(b.next - 1)])].load()) return 0;
    ctx = b.contexts[std::size_t(b.plan[std::size_t(b.next++)])];
    last = b.next == b.n;
  }
  unblock(b.api, ctx);
  return last ? 1 : 0;
}

void block_here(Board& b) {
  void* ctx = nullptr;
  if (b.api == Api::nanos6) {
    ctx = nanos6_get_current_blocking_context();
  } else {
    alpi_task* t = nullptr;
    ASSERT_EQ(alpi_task_self(&t), ALPI_SUCCESS);
    ctx = t;
  }
  int index = 0;
  {
    std::lock_guard guard(b.mutex);
    index = int(b.contexts.size());
    b.contexts.push_back(ctx);
  }
  if (b.api == Api::nanos6)
    nanos6_block_current_task(ctx);
  else
    ASSERT_EQ(alpi_task_block(static_cast<alpi_task*>(ctx)), ALPI_SUCCESS);
  b.resumed[std::size_t(index)].store(true);
  b.resumed_count.fetch_add(1);
}

// A hang fails the test with what it saw, well before ctest's timeout.
std::string progress(const Board& b) {
  return "blocking_order: " + std::to_string(b.resumed_count.load()) + " of " +
         std::to_string(b.n) + " tasks resumed";
}

class BlockingOrder : public testing::TestWithParam<int> {
 protected:
  void SetUp() override { rt_ = start_serial_at_one(GetParam()); }
  // More blocked tasks than workers, every one unblocked in `order`.
  void run(Api api, Order order) {
    Board b(2 * GetParam() + 3);
    b.api = api;
    b.order = order;
    HangWatchdog dog(60, [&b] { return progress(b); });
    nanos6_register_polling_service("blocking_order", &service, &b);
    for (int i = 0; i < b.n; ++i) joule::spawn({}, [&b] { block_here(b); });
    joule::taskwait();
    EXPECT_EQ(b.resumed_count.load(), b.n);
    EXPECT_EQ(b.next, b.n);
  }
  std::unique_ptr<joule::runtime> rt_;
};

TEST_P(BlockingOrder, Nanos6InBlockingOrder) { run(Api::nanos6, Order::blocked); }
TEST_P(BlockingOrder, Nanos6Reversed) { run(Api::nanos6, Order::reverse); }
TEST_P(BlockingOrder, Nanos6Shuffled) { run(Api::nanos6, Order::shuffled); }
TEST_P(BlockingOrder, AlpiInBlockingOrder) { run(Api::alpi, Order::blocked); }
TEST_P(BlockingOrder, AlpiReversed) { run(Api::alpi, Order::reverse); }
TEST_P(BlockingOrder, AlpiShuffled) { run(Api::alpi, Order::shuffled); }

// Blocks that nest inside other waits: a task's children block and its
// taskwait waits for them, repeatedly, and the CPU ids they see stay in
// range while spares stand in.
TEST_P(BlockingOrder, BlockedChildrenUnderTaskwaitAndCpuIds) {
  Board b(2 * GetParam() + 3);
  b.order = Order::blocked;
  HangWatchdog dog(60, [&b] { return progress(b); });
  std::atomic<int> bad_ids{0};
  nanos6_register_polling_service("blocking_order", &service, &b);
  joule::spawn({}, [&] {
    for (int i = 0; i < b.n; ++i)
      joule::spawn({}, [&] {
        uint64_t id = 0;
        block_here(b);
        if (alpi_cpu_logical_id(&id) != ALPI_SUCCESS || id >= uint64_t(GetParam()))
          bad_ids.fetch_add(1);
        const long v = nanos6_get_current_virtual_cpu();
        if (v < 0 || v >= GetParam()) bad_ids.fetch_add(1);
      });
    joule::taskwait();
  });
  joule::taskwait();
  EXPECT_EQ(b.resumed_count.load(), b.n);
  EXPECT_EQ(bad_ids.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Workers, BlockingOrder, testing::Values(1, 2, 4),
                         [](const testing::TestParamInfo<int>& i) {
                           return std::to_string(i.param) + "w";
                         });

}  // namespace
