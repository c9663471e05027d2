// Locks owned by tasks (OpenMP 5.2 §18.9) through the GOMP ABI, on as many
// workers as JOULE_WORKERS says (ctest runs 2, 4 and 32): a nested lock is
// re-entered only by the task that holds it, not by other tasks on the same
// thread; locks that tasks hold across their children and a taskwait, with
// siblings wanting the same lock, never deadlock (joule runs other tasks on
// a thread whose task waits: only the waiting task's descendants may run
// on top of it). The sanitizer builds run this.
#include <gtest/gtest.h>

#include <atomic>

#include "joule/joule.h"
#include "joule/omp/omp.h"

extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);
bool GOMP_single_start(void);
void GOMP_task(void (*)(void*), void*, void (*)(void*, void*), long, long, bool, unsigned, void**,
               int, void*);
void GOMP_taskwait(void);
}

namespace {

constexpr unsigned kFinal = 2;  // GOMP_TASK_FLAG_FINAL (gcc's gomp-constants.h)

template <class F>
void parallel(F f) {
  GOMP_parallel([](void* d) { (*static_cast<F*>(d))(); }, &f, 0, 0);
}

// A task whose body is f: the block holds a pointer to it (the creator waits).
template <class F>
void task(F& f, bool if_clause = true, unsigned flags = 0) {
  F* p = &f;
  GOMP_task([](void* d) { (**static_cast<F**>(d))(); }, &p, nullptr, sizeof p, alignof(F*),
            if_clause, flags, nullptr, 0, nullptr);
}

template <class F>
void in_single(F f) {
  parallel([&] {
    if (GOMP_single_start()) f();
    GOMP_barrier();
  });
}

void spin(int n) {
  for (volatile int i = 0; i < n; i = i + 1) {
  }
}

class GompLockTask : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(joule_init(), JOULE_OK) << joule_last_error(); }
  static void TearDownTestSuite() { joule_finalize(); }
};

TEST_F(GompLockTask, NestLockBelongsToTheTaskNotTheThread) {
  omp_nest_lock_t l;
  omp_init_nest_lock(&l);
  int own = -1, undeferred = -1, included = -1, deferred = -1, after = -1;
  in_single([&] {
    auto parent = [&] {
      omp_set_nest_lock(&l);
      own = omp_test_nest_lock(&l);
      auto a = [&] { undeferred = omp_test_nest_lock(&l); };
      auto b = [&] { included = omp_test_nest_lock(&l); };
      auto c = [&] { deferred = omp_test_nest_lock(&l); };
      task(a, false);
      task(b, true, kFinal);
      task(c);
      GOMP_taskwait();
      after = omp_test_nest_lock(&l);
      for (int i = 0; i < 3; ++i) omp_unset_nest_lock(&l);
    };
    task(parent);
    GOMP_taskwait();
  });
  EXPECT_EQ(own, 2);
  EXPECT_EQ(undeferred, 0);
  EXPECT_EQ(included, 0);
  EXPECT_EQ(deferred, 0);
  EXPECT_EQ(after, 3);
  EXPECT_EQ(omp_test_nest_lock(&l), 1);  // free again
  omp_unset_nest_lock(&l);
  omp_destroy_nest_lock(&l);
}

// Every task holds one of two locks over three slow children and a taskwait.
TEST_F(GompLockTask, LocksHeldAcrossTaskwaitNeverDeadlock) {
  omp_lock_t simple;
  omp_nest_lock_t nested;
  omp_init_lock(&simple);
  omp_init_nest_lock(&nested);
  std::atomic<int> inside_simple{0}, inside_nested{0}, overlaps{0};
  long work = 0;
  in_single([&] {
    for (int i = 0; i < 48; ++i) {
      auto body = [&, i] {
        std::atomic<int>& inside = i % 2 ? inside_simple : inside_nested;
        if (i % 2)
          omp_set_lock(&simple);
        else
          omp_set_nest_lock(&nested);
        if (inside.fetch_add(1) != 0) overlaps++;
        std::atomic<int> mine{0};
        auto child = [&] {
          spin(200000);
          mine++;
        };
        for (int c = 0; c < 3; ++c) task(child);
        GOMP_taskwait();
        __atomic_fetch_add(&work, long(mine.load()), __ATOMIC_RELAXED);
        inside.fetch_sub(1);
        if (i % 2)
          omp_unset_lock(&simple);
        else
          omp_unset_nest_lock(&nested);
      };
      // The body lives on this frame: the task gets a copy (its captures are plain).
      using B = decltype(body);
      GOMP_task([](void* d) { (*static_cast<B*>(d))(); }, &body, nullptr, sizeof body, alignof(B),
                true, 0, nullptr, 0, nullptr);
    }
    GOMP_taskwait();
  });
  EXPECT_EQ(work, 144);
  EXPECT_EQ(overlaps, 0);
  omp_destroy_lock(&simple);
  omp_destroy_nest_lock(&nested);
}

// One task holds the lock over slow children and a taskwait; once it does,
// a hundred siblings that want the lock are created. Idle workers take its
// children and block on the lock in siblings; its own thread, out of work
// in its taskwait, must not start a sibling on top of it (that sibling
// would wait for the lock forever).
TEST_F(GompLockTask, SiblingsWaitForATaskHoldingTheLock) {
  omp_lock_t l;
  omp_init_lock(&l);
  std::atomic<int> children{0}, siblings{0};
  std::atomic<bool> holding{false};
  in_single([&] {
    auto child = [&] {
      spin(20000000);
      children++;
    };
    auto holder = [&] {
      omp_set_lock(&l);
      for (int c = 0; c < 2; ++c) task(child);
      holding = true;
      GOMP_taskwait();
      omp_unset_lock(&l);
    };
    auto sibling = [&] {
      omp_set_lock(&l);
      siblings++;
      omp_unset_lock(&l);
    };
    task(holder);
    while (!holding) spin(1000);
    for (int i = 0; i < 100; ++i) task(sibling);
    GOMP_taskwait();
  });
  EXPECT_EQ(children, 2);
  EXPECT_EQ(siblings, 100);
  omp_destroy_lock(&l);
}

// Tasks on every worker re-enter a nested lock three deep; one at a time.
TEST_F(GompLockTask, NestedLockExcludesOtherTasks) {
  omp_nest_lock_t l;
  omp_init_nest_lock(&l);
  std::atomic<int> inside{0}, overlaps{0}, bodies{0};
  in_single([&] {
    auto body = [&] {
      for (int d = 1; d <= 3; ++d) {
        omp_set_nest_lock(&l);
        if (d == 1 && inside.fetch_add(1) != 0) overlaps++;
      }
      spin(500);
      bodies++;
      inside.fetch_sub(1);
      for (int d = 0; d < 3; ++d) omp_unset_nest_lock(&l);
    };
    for (int i = 0; i < 2000; ++i) task(body);
    GOMP_taskwait();
  });
  EXPECT_EQ(bodies, 2000);
  EXPECT_EQ(overlaps, 0);
  omp_destroy_nest_lock(&l);
}

}  // namespace
