// JOULE_SERIAL_INLINE: with one worker and lending off, tasks run inline at
// submit in creation order; otherwise (switched off, priority policy, more
// workers) they are deferred as usual.
#include <joule/joule.h>
#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using setting = std::pair<std::string, std::string>;

std::unique_ptr<joule::runtime> one_worker(const char* inline_on, const char* policy) {
  return std::make_unique<joule::runtime>(std::initializer_list<setting>{
      {"JOULE_WORKERS", "1"}, {"JOULE_SERIAL_INLINE", inline_on}, {"JOULE_QUEUES", policy}});
}

// True if a task spawned now has already run when spawn returns. With one
// worker (this thread) a deferred task can only run at the taskwait.
bool runs_at_submit() {
  bool ran = false;
  joule::spawn([&ran] { ran = true; });
  const bool at_submit = ran;
  joule::taskwait();
  EXPECT_TRUE(ran);
  return at_submit;
}

TEST(SerialInline, OneWorkerRunsTasksAtSubmitInCreationOrder) {
  auto rt = one_worker("1", "lifo");  // lifo would reverse a deferred order
  EXPECT_TRUE(runs_at_submit());
  std::vector<int> order;
  int x = 0;
  for (int i = 0; i < 5; ++i) joule::spawn({joule::inout(x)}, [&order, i] { order.push_back(i); });
  joule::spawn([&order] {
    joule::spawn([&order] { order.push_back(100); });  // nested: inline too
    order.push_back(5);
  });
  joule::taskwait();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 100, 5}));
}

TEST(SerialInline, TopLevelIsNotFinalAndExceptionsWaitForTaskwait) {
  auto rt = one_worker("1", "work-stealing");
  EXPECT_EQ(joule_in_final(), 0);
  int after = 0;
  joule::spawn([] { throw std::runtime_error("boom"); });
  joule::spawn([&after] { after = 1; });  // a throwing sibling loses nothing
  EXPECT_EQ(after, 1);
  EXPECT_THROW(joule::taskwait(), std::runtime_error);
}

TEST(SerialInline, SwitchedOffDefers) {
  auto rt = one_worker("0", "work-stealing");
  EXPECT_FALSE(runs_at_submit());
}

TEST(SerialInline, PriorityPolicyKeepsItsOrder) {
  auto rt = one_worker("1", "priority");
  EXPECT_FALSE(runs_at_submit());
}

TEST(SerialInline, TwoWorkersDefer) {
  auto rt = std::make_unique<joule::runtime>(
      std::initializer_list<setting>{{"JOULE_WORKERS", "2"}, {"JOULE_SERIAL_INLINE", "1"}});
  // The task waits (up to 5 s) for a flag set after spawn returns: run
  // inline, it would give up and see it unset.
  std::atomic<bool> go{false};
  bool seen_go = false;
  joule::spawn([&] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!go.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    seen_go = go.load();
  });
  go.store(true);
  joule::taskwait();
  EXPECT_TRUE(seen_go);
}

}  // namespace
