// Nested tasks: children form their own dependency domain, and a task's
// dependencies are released only when its descendants have finished, so a
// parent's successors see the children's writes. Also final (descendants run
// inline) and if_=false (undeferred: runs before spawn returns, after its deps).
#include "runtime_sweep.hpp"
#include "test_support.hpp"

#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

using namespace joule_test;
using std::chrono::microseconds;

class Nesting : public sweep_test {};

// The parent writes nothing itself and does not taskwait; its successor
// still sees every child's write.
TEST_P(Nesting, SuccessorSeesChildrenWrites) {
  int a[16] = {};
  joule::spawn({joule::out(a, 16)}, [&a] {
    for (int i = 0; i < 16; ++i)
      joule::spawn({joule::out(a[i])}, [&a, i] {
        spin_for(microseconds(i % 4 * 40));
        a[i] = i + 1;
      });
  });
  int sum = -1;
  joule::spawn({joule::in(a, 16)}, [&] {
    sum = 0;
    for (int v : a) sum += v;
  });
  joule::taskwait();
  EXPECT_EQ(sum, 16 * 17 / 2);
}

// Grandchildren count too: the release waits for all descendants.
TEST_P(Nesting, SuccessorSeesGrandchildrenWrites) {
  long x = 0;
  joule::spawn({joule::inout(x)}, [&x] {
    joule::spawn({joule::inout(x)}, [&x] {
      joule::spawn({joule::inout(x)}, [&x] {
        spin_for(microseconds(500));
        x = 42;
      });
    });
  });
  long seen = 0;
  joule::spawn({joule::in(x)}, [&] { seen = x; });
  joule::taskwait();
  EXPECT_EQ(seen, 42);
}

// Children of one parent are ordered among themselves by their own deps.
TEST_P(Nesting, ChildrenOrderedInTheirDomain) {
  long x = 0;
  std::vector<long> seen(20, -1);
  joule::spawn({joule::inout(x)}, [&] {
    for (int i = 0; i < 10; ++i) {
      joule::spawn({joule::inout(x)}, [&x, i] {
        spin_for(microseconds(30));
        x = x * 2 + i;
      });
      joule::spawn({joule::in(x)}, [&x, &seen, i] { seen[i] = x; });
    }
  });
  joule::taskwait();
  long v = 0;
  for (int i = 0; i < 10; ++i) {
    v = v * 2 + i;
    EXPECT_EQ(seen[i], v) << i;
  }
  EXPECT_EQ(x, v);
}

// Two parents on disjoint data: each one's children see only their domain,
// and both trees complete.
TEST_P(Nesting, IndependentParentsComplete) {
  long a = 0, b = 0;
  for (long* p : {&a, &b}) {
    joule::spawn({joule::inout(*p)}, [p] {
      for (int i = 0; i < 100; ++i) joule::spawn({joule::inout(*p)}, [p] { ++*p; });
    });
  }
  joule::taskwait();
  EXPECT_EQ(a, 100);
  EXPECT_EQ(b, 100);
}

// A parent that taskwaits sees its children's writes in its own body.
TEST_P(Nesting, ParentTaskwaitSeesChildren) {
  long result = 0;
  joule::spawn({joule::out(result)}, [&result] {
    long parts[8] = {};
    for (int i = 0; i < 8; ++i) joule::spawn({joule::out(parts[i])}, [&parts, i] { parts[i] = i; });
    joule::taskwait();
    long s = 0;
    for (long p : parts) s += p;
    result = s;
  });
  joule::taskwait();
  EXPECT_EQ(result, 28);
}

// A chain of nested tasks thousands deep (each spawns one child on the same
// data and returns): completion propagates up without exhausting a stack.
void nest(long* x, int depth) {
  if (depth == 0) {
    *x = 1;
    return;
  }
  joule::spawn({joule::inout(*x)}, [x, depth] { nest(x, depth - 1); });
}

TEST_P(Nesting, DeepChainOfDescendants) {
  long x = 0;
  joule::spawn({joule::inout(x)}, [&x] { nest(&x, 5000); });
  long seen = 0;
  joule::spawn({joule::in(x)}, [&] { seen = x; });
  joule::taskwait();
  EXPECT_EQ(seen, 1);
}

thread_local int t_wait_depth = 0;  // taskwaits open on this thread

long fib(int n, std::atomic<int>* max_depth) {
  if (n < 2) return n;
  long a = 0, b = 0;
  joule::spawn([&a, n, max_depth] { a = fib(n - 1, max_depth); });
  joule::spawn([&b, n, max_depth] { b = fib(n - 2, max_depth); });
  const int d = ++t_wait_depth;
  int m = max_depth->load();
  while (d > m && !max_depth->compare_exchange_weak(m, d)) {
  }
  joule::taskwait();
  --t_wait_depth;
  return a + b;
}

TEST_P(Nesting, RecursiveFib) {
  std::atomic<int> depth{0};
  long r = 0;
  joule::spawn([&] { r = fib(14, &depth); });
  joule::taskwait();
  EXPECT_EQ(r, 377);
}

// A taskwait may run other ready tasks while it waits, but the taskwaits
// nested on one thread's stack must stay bounded by the recursion depth
// (plus slack), not grow with the number of tasks: otherwise a recursive
// program overflows the stack (fib(23) on one worker under fifo did).
TEST_P(Nesting, TaskwaitNestingStaysBounded) {
  std::atomic<int> depth{0};
  long r = 0;
  joule::spawn([&] { r = fib(18, &depth); });
  joule::taskwait();
  EXPECT_EQ(r, 2584);
  EXPECT_LE(depth.load(), 256) << "taskwaits nested " << depth.load() << " deep on one thread";
}

// final: the task and all its descendants run inline; in_final() is true
// inside and false elsewhere.
TEST_P(Nesting, FinalDescendantsRunInline) {
  std::atomic<int> bad{0};
  std::atomic<int> ran{0};
  EXPECT_FALSE(joule::in_final());
  joule::task_options fin;
  fin.final = true;
  joule::spawn(
      [&] {
        if (!joule::in_final()) bad.fetch_add(1);
        for (int i = 0; i < 4; ++i) {
          std::atomic<bool> child_done{false};
          joule::spawn([&] {
            if (!joule::in_final()) bad.fetch_add(1);
            std::atomic<bool> grandchild_done{false};
            joule::spawn([&] {
              if (!joule::in_final()) bad.fetch_add(1);
              grandchild_done.store(true);
            });
            if (!grandchild_done.load()) bad.fetch_add(1);  // it ran inline
            joule::taskwait();                              // keeps the frame alive if it did not
            child_done.store(true);
            ran.fetch_add(1);
          });
          if (!child_done.load()) bad.fetch_add(1);
          joule::taskwait();
        }
      },
      fin);
  joule::spawn([&] {
    if (joule::in_final()) bad.fetch_add(1);
  });
  joule::taskwait();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(ran.load(), 4);
  EXPECT_FALSE(joule::in_final());
}

// A final task still waits for its own dependencies.
TEST_P(Nesting, FinalTaskRespectsDeps) {
  long x = 0;
  joule::spawn({joule::out(x)}, [&x] {
    spin_for(microseconds(500));
    x = 7;
  });
  long seen = 0;
  joule::task_options fin;
  fin.final = true;
  joule::spawn(
      {joule::in(x)}, [&] { seen = x; }, fin);
  joule::taskwait();
  EXPECT_EQ(seen, 7);
}

// if_=false: the task runs before spawn returns, after its dependencies, on
// the creating thread.
TEST_P(Nesting, UndeferredRunsAfterDepsBeforeSpawnReturns) {
  long x = 0;
  joule::spawn({joule::out(x)}, [&x] {
    spin_for(microseconds(1000));
    x = 5;
  });
  long seen = 0;
  std::atomic<bool> ran{false};
  std::thread::id runner;
  joule::task_options undeferred;
  undeferred.if_ = false;
  joule::spawn(
      {joule::in(x)},
      [&] {
        seen = x;
        runner = std::this_thread::get_id();
        ran.store(true);
      },
      undeferred);
  const bool ran_before_return = ran.load();
  joule::taskwait();
  EXPECT_TRUE(ran_before_return);
  EXPECT_EQ(seen, 5);
  EXPECT_EQ(runner, std::this_thread::get_id());
}

TEST_P(Nesting, UndeferredInsideTask) {
  std::atomic<int> bad{0};
  long x = 0;
  joule::spawn({joule::inout(x)}, [&] {
    joule::spawn({joule::out(x)}, [&x] {
      spin_for(microseconds(300));
      x = 3;
    });
    joule::task_options undeferred;
    undeferred.if_ = false;
    std::atomic<bool> ran{false};
    joule::spawn(
        {joule::inout(x)},
        [&] {
          if (x != 3) bad.fetch_add(1);
          x = 4;
          ran.store(true);
        },
        undeferred);
    if (!ran.load()) bad.fetch_add(1);
    joule::taskwait();  // keeps `ran` alive if the task was deferred
  });
  joule::taskwait();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(x, 4);
}

INSTANTIATE_TEST_SUITE_P(Sweep, Nesting, testing::ValuesIn(full_sweep()), config_namer{});

}  // namespace
