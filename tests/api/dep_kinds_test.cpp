// Dependency kinds beyond plain in/out: commutative (and reduction) tasks are
// mutually exclusive in any order and ordered against in/out; concurrent tasks
// may run together and are ordered against everything else; long chains of
// inout tasks run in creation order.
#include "runtime_sweep.hpp"
#include "test_support.hpp"

#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <vector>

namespace {

using namespace joule_test;
using std::chrono::microseconds;

// Tracks how many bodies are inside a critical section at once.
struct occupancy {
  std::atomic<int> now{0};
  std::atomic<int> max{0};
  void enter() {
    const int n = now.fetch_add(1) + 1;
    int m = max.load();
    while (n > m && !max.compare_exchange_weak(m, n)) {
    }
  }
  void leave() { now.fetch_sub(1); }
};

class DepKinds : public sweep_test {};

TEST_P(DepKinds, CommutativeIsExclusive) {
  long value = 0;  // plain: only commutative tasks touch it
  occupancy occ;
  constexpr int n = 60;
  for (int i = 0; i < n; ++i) {
    joule::spawn({joule::commutative(value)}, [&, i] {
      occ.enter();
      const long v = value;
      spin_for(microseconds(i % 3 == 0 ? 100 : 10));
      value = v + 1;
      occ.leave();
    });
  }
  joule::taskwait();
  EXPECT_EQ(occ.max.load(), 1);
  EXPECT_EQ(value, n);
}

TEST_P(DepKinds, ReductionIsExclusiveWithCommutative) {
  long value = 0;
  occupancy occ;
  for (int i = 0; i < 40; ++i) {
    auto body = [&] {
      occ.enter();
      const long v = value;
      spin_for(microseconds(20));
      value = v + 1;
      occ.leave();
    };
    if (i % 2) {
      joule::spawn({joule::reduction(value)}, body);
    } else {
      joule::spawn({joule::commutative(value)}, body);
    }
  }
  joule::taskwait();
  EXPECT_EQ(occ.max.load(), 1);
  EXPECT_EQ(value, 40);
}

// out -> commutative x k -> in -> commutative x k -> inout: every group sees
// exactly the updates before it and none after it.
TEST_P(DepKinds, CommutativeOrderedAgainstInOut) {
  long value = -1;
  occupancy occ;
  std::atomic<int> bad{0};
  std::atomic<int> phase{0};  // 0 before out, 1 after out, 2 after in, 3 after inout
  constexpr int k = 20;
  joule::spawn({joule::out(value)}, [&] {
    spin_for(microseconds(300));
    value = 0;
    phase.store(1);
  });
  auto add = [&](int want_phase) {
    return [&, want_phase] {
      if (phase.load() != want_phase) bad.fetch_add(1);
      occ.enter();
      const long v = value;
      spin_for(microseconds(20));
      value = v + 1;
      occ.leave();
    };
  };
  for (int i = 0; i < k; ++i) joule::spawn({joule::commutative(value)}, add(1));
  long seen_mid = -1;
  joule::spawn({joule::in(value)}, [&] {
    spin_for(microseconds(200));
    seen_mid = value;
    phase.store(2);
  });
  for (int i = 0; i < k; ++i) joule::spawn({joule::commutative(value)}, add(2));
  long seen_end = -1;
  joule::spawn({joule::inout(value)}, [&] {
    seen_end = value;
    phase.store(3);
  });
  joule::taskwait();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(occ.max.load(), 1);
  EXPECT_EQ(seen_mid, k);
  EXPECT_EQ(seen_end, 2 * k);
}

// An undeferred (if_=false) commutative task still excludes the deferred
// ones, and its creator runs it once it holds the exclusion.
TEST_P(DepKinds, UndeferredCommutativeIsExclusive) {
  long value = 0;
  occupancy occ;
  auto add = [&] {
    occ.enter();
    const long v = value;
    spin_for(microseconds(30));
    value = v + 1;
    occ.leave();
  };
  joule::task_options undeferred;
  undeferred.if_ = false;
  long expect = 0;
  for (int round = 0; round < 10; ++round) {
    // A predecessor finishing on another worker releases the undeferred one.
    joule::spawn({joule::inout(value)}, [&value] {
      spin_for(microseconds(100));
      value += 100;
    });
    joule::spawn({joule::commutative(value)}, add, undeferred);
    for (int i = 0; i < 3; ++i) joule::spawn({joule::commutative(value)}, add);
    joule::spawn({joule::commutative(value)}, add, undeferred);
    expect += 105;
  }
  joule::taskwait();
  EXPECT_EQ(occ.max.load(), 1);
  EXPECT_EQ(value, expect);
}

// Commutative tasks on different objects need no exclusion; they complete.
TEST_P(DepKinds, CommutativeOnDifferentObjectsComplete) {
  long a = 0, b = 0;
  for (int i = 0; i < 50; ++i) {
    joule::spawn({joule::commutative(a)}, [&] { ++a; });
    joule::spawn({joule::commutative(b)}, [&] { ++b; });
  }
  joule::taskwait();
  EXPECT_EQ(a, 50);
  EXPECT_EQ(b, 50);
}

// Commutative tasks whose regions only partly overlap still exclude each
// other on the shared bytes: [0,8), [4,12) and [6,10) overlap pairwise.
TEST_P(DepKinds, CommutativePartialOverlapIsExclusive) {
  int a[12] = {};
  occupancy occ;
  constexpr int starts[3] = {0, 4, 6};
  constexpr int lens[3] = {8, 8, 4};
  for (int i = 0; i < 40; ++i) {
    int* p = a + starts[i % 3];
    const int n = lens[i % 3];
    joule::spawn({joule::commutative(p, static_cast<std::size_t>(n))}, [&occ, p, n] {
      occ.enter();
      int old[8];
      for (int j = 0; j < n; ++j) old[j] = p[j];
      spin_for(microseconds(20));
      for (int j = 0; j < n; ++j) p[j] = old[j] + 1;
      occ.leave();
    });
  }
  joule::taskwait();
  EXPECT_EQ(occ.max.load(), 1);
  int expect[12] = {};
  for (int i = 0; i < 40; ++i)
    for (int j = starts[i % 3]; j < starts[i % 3] + lens[i % 3]; ++j) ++expect[j];
  for (int j = 0; j < 12; ++j) EXPECT_EQ(a[j], expect[j]) << j;
}

// An `in` after several `concurrent` tasks sees all their increments; the
// next concurrent group starts only after the `in` and an `out`.
TEST_P(DepKinds, ConcurrentOrderedAgainstInOut) {
  long value = 0;
  std::atomic<int> bad{0};
  std::atomic<int> phase{0};
  constexpr int k = 30;
  for (int i = 0; i < k; ++i) {
    joule::spawn({joule::concurrent(value)}, [&, i] {
      if (phase.load() != 0) bad.fetch_add(1);
      spin_for(microseconds(i % 5 * 10));
      std::atomic_ref<long>(value).fetch_add(1);
    });
  }
  long seen = -1;
  joule::spawn({joule::in(value)}, [&] {
    seen = value;
    spin_for(microseconds(200));
    phase.store(1);
  });
  joule::spawn({joule::out(value)}, [&] {
    if (phase.load() != 1) bad.fetch_add(1);
    spin_for(microseconds(200));
    value = 1000;
    phase.store(2);
  });
  for (int i = 0; i < k; ++i) {
    joule::spawn({joule::concurrent(value)}, [&] {
      if (phase.load() != 2) bad.fetch_add(1);
      std::atomic_ref<long>(value).fetch_add(1);
    });
  }
  long last = -1;
  joule::spawn({joule::inout(value)}, [&] { last = value; });
  joule::taskwait();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(seen, k);
  EXPECT_EQ(last, 1000 + k);
}

// Concurrent and commutative are different kinds: they are ordered.
TEST_P(DepKinds, ConcurrentOrderedAgainstCommutative) {
  long value = 0;
  std::atomic<int> concurrent_done{0};
  std::atomic<int> bad{0};
  for (int i = 0; i < 10; ++i)
    joule::spawn({joule::concurrent(value)}, [&] {
      spin_for(microseconds(50));
      std::atomic_ref<long>(value).fetch_add(1);
      concurrent_done.fetch_add(1);
    });
  for (int i = 0; i < 10; ++i)
    joule::spawn({joule::commutative(value)}, [&] {
      if (concurrent_done.load() != 10) bad.fetch_add(1);
      value += 10;
    });
  joule::taskwait();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(value, 110);
}

// A long chain of inout tasks runs strictly in creation order.
TEST_P(DepKinds, InoutChainRunsInOrder) {
  long value = 0;
  std::atomic<int> bad{0};
  constexpr int n = 2000;
  for (int i = 0; i < n; ++i)
    joule::spawn({joule::inout(value)}, [&, i] {
      if (value != i) bad.fetch_add(1);
      value = i + 1;
    });
  joule::taskwait();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(value, n);
}

// Readers between writers see exactly the preceding writer's value.
TEST_P(DepKinds, WriterReadersWriter) {
  long value = 0;
  std::vector<long> seen(64, -1);
  for (int round = 0; round < 8; ++round) {
    joule::spawn({joule::out(value)}, [&, round] {
      spin_for(microseconds(50));
      value = round;
    });
    for (int r = 0; r < 8; ++r)
      joule::spawn({joule::in(value)}, [&, round, r] { seen[round * 8 + r] = value; });
  }
  joule::taskwait();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(seen[i], i / 8) << i;
}

// Tasks without dependencies all run.
TEST_P(DepKinds, IndependentTasksAllRun) {
  std::atomic<int> count{0};
  for (int i = 0; i < 5000; ++i) joule::spawn([&] { count.fetch_add(1); });
  joule::taskwait();
  EXPECT_EQ(count.load(), 5000);
}

// Several dependencies on one task combine: it waits for all its inputs.
TEST_P(DepKinds, MultipleDepsPerTask) {
  long a = 0, b = 0, c = 0;
  joule::spawn({joule::out(a)}, [&] {
    spin_for(microseconds(200));
    a = 1;
  });
  joule::spawn({joule::out(b)}, [&] {
    spin_for(microseconds(100));
    b = 2;
  });
  joule::spawn({joule::in(a), joule::in(b), joule::out(c)}, [&] { c = a + b; });
  long seen = 0;
  joule::spawn({joule::in(c)}, [&] { seen = c; });
  joule::taskwait();
  EXPECT_EQ(seen, 3);
}

// One task listing overlapping regions (and the same region twice with
// different kinds) is ordered by the union of its accesses.
TEST_P(DepKinds, OverlappingDepsInOneTask) {
  int a[16];
  joule::spawn({joule::out(a, 16)}, [&a] {
    spin_for(microseconds(300));
    for (int& v : a) v = 1;
  });
  int sum_before = -1;
  joule::spawn({joule::in(a, 16), joule::out(a + 8, 8)}, [&] {
    spin_for(microseconds(200));
    sum_before = 0;
    for (int v : a) sum_before += v;
    for (int i = 8; i < 16; ++i) a[i] = 2;
  });
  long x = 0;
  joule::spawn({joule::in(x), joule::out(x)}, [&x] {
    spin_for(microseconds(200));
    x = 5;
  });
  long seen_x = 0;
  joule::spawn({joule::in(x), joule::in(x)}, [&] { seen_x = x; });
  int sum_after = -1;
  joule::spawn({joule::in(a + 4, 12)}, [&] {
    sum_after = 0;
    for (int i = 4; i < 16; ++i) sum_after += a[i];
  });
  joule::taskwait();
  EXPECT_EQ(sum_before, 16);
  EXPECT_EQ(sum_after, 4 + 16);
  EXPECT_EQ(seen_x, 5);
}

INSTANTIATE_TEST_SUITE_P(Sweep, DepKinds, testing::ValuesIn(full_sweep()), config_namer{});

}  // namespace
