// The observer hooks see every task, worker and iteration event.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>

#include "joule/joule.hpp"
#include "observer.hpp"
#include "task.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

struct Counts {
  std::atomic<int> submits{0}, starts{0}, ends{0}, iterations{0}, workers{0}, runtime{0};
  std::atomic<bool> ordered{true};
  std::mutex mu;
  std::set<std::uint64_t> ids;
};
Counts* g_counts = nullptr;

class CountingObserver final : public Observer {
 public:
  const char* name() const override { return "counting"; }
  void on_runtime_start(const RunInfo&) override { ++g_counts->runtime; }
  void on_worker_start(int, int) override { ++g_counts->workers; }
  void on_task_submit(const Task& t, int) override {
    ++g_counts->submits;
    std::lock_guard g(g_counts->mu);
    g_counts->ids.insert(t.id);
  }
  void on_task_start(const Task&, int, std::uint64_t) override { ++g_counts->starts; }
  void on_task_end(const Task&, int, std::uint64_t s, std::uint64_t e) override {
    if (e < s) g_counts->ordered = false;
    ++g_counts->ends;
  }
  void on_iteration_boundary(std::uint64_t, std::uint64_t) override { ++g_counts->iterations; }
};

std::unique_ptr<Observer> make_counting(const Config&) {
  return std::make_unique<CountingObserver>();
}

TEST(Observer, SeesEveryTaskAndIteration) {
  Counts counts;
  g_counts = &counts;
  register_observer_factory(make_counting);
  {
    joule::runtime rt({{"JOULE_WORKERS", "2"}});
    int x = 0;
    for (int i = 0; i < 500; ++i) joule::spawn({joule::inout(x)}, [&x] { ++x; });
    joule::taskwait();
    joule::iteration_boundary();
    joule::iteration_boundary();
    EXPECT_EQ(x, 500);
  }
  unregister_observer_factory(make_counting);
  EXPECT_EQ(counts.runtime.load(), 1);
  EXPECT_EQ(counts.workers.load(), 2);
  EXPECT_EQ(counts.submits.load(), 500);
  EXPECT_EQ(counts.starts.load(), 500);
  EXPECT_EQ(counts.ends.load(), 500);
  EXPECT_EQ(counts.ids.size(), 500u);  // ids are unique
  EXPECT_TRUE(counts.ordered.load());
  EXPECT_EQ(counts.iterations.load(), 2);
  g_counts = nullptr;
}

}  // namespace
}  // namespace joule::engine
