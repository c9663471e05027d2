// libjoule-omp's GOMP_* ABI called directly, the way GCC's outlined code
// calls it, so that the sanitizer builds check the team machinery too.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <set>
#include <vector>

#include "joule/joule.h"

extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);
bool GOMP_loop_dynamic_start(long, long, long, long, long*, long*);
bool GOMP_loop_dynamic_next(long*, long*);
bool GOMP_loop_start(long, long, long, long, long, long*, long*, std::uintptr_t*, void**);
bool GOMP_loop_static_next(long*, long*);
bool GOMP_loop_guided_start(long, long, long, long, long*, long*);
bool GOMP_loop_guided_next(long*, long*);
bool GOMP_loop_ull_static_start(bool, unsigned long long, unsigned long long, unsigned long long,
                                unsigned long long, unsigned long long*, unsigned long long*);
bool GOMP_loop_ull_static_next(unsigned long long*, unsigned long long*);
bool GOMP_loop_ordered_static_start(long, long, long, long, long*, long*);
bool GOMP_loop_ordered_static_next(long*, long*);
void GOMP_ordered_start(void);
void GOMP_ordered_end(void);
void GOMP_loop_end(void);
void GOMP_loop_end_nowait(void);
bool GOMP_single_start(void);
void* GOMP_single_copy_start(void);
void GOMP_single_copy_end(void*);
unsigned GOMP_sections_start(unsigned);
unsigned GOMP_sections_next(void);
void GOMP_sections_end(void);
void GOMP_critical_start(void);
void GOMP_critical_end(void);
void GOMP_task(void (*)(void*), void*, void (*)(void*, void*), long, long, bool, unsigned, void**,
               int, void*);
void GOMP_taskwait(void);
void GOMP_taskloop(void (*)(void*), void*, void (*)(void*, void*), long, long, unsigned,
                   unsigned long, int, long, long, long);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_level(void);
}

namespace {

constexpr int kTeam = 4;

class GompAbi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* keys[] = {"JOULE_WORKERS"};
    const char* values[] = {"4"};
    ASSERT_EQ(joule_init_with(keys, values, 1), JOULE_OK) << joule_last_error();
  }
  static void TearDownTestSuite() { joule_finalize(); }
};

template <class F>
void parallel(F f, unsigned n = kTeam) {
  GOMP_parallel([](void* d) { (*static_cast<F*>(d))(); }, &f, n, 0);
}

TEST_F(GompAbi, TeamMembersAreDistinctWorkers) {
  std::atomic<int> count{0}, bad{0};
  std::vector<std::atomic<int>> worker_of(kTeam);
  parallel([&] {
    count++;
    worker_of[std::size_t(omp_get_thread_num())] = joule_worker_id();
    if (omp_get_num_threads() != kTeam || omp_get_level() != 1) bad++;
    GOMP_barrier();
  });
  EXPECT_EQ(count, kTeam);
  EXPECT_EQ(bad, 0);
  std::set<int> distinct;
  for (auto& w : worker_of) distinct.insert(w.load());
  EXPECT_EQ(distinct.size(), std::size_t(kTeam));
  EXPECT_EQ(distinct.count(-1), 0u);
}

TEST_F(GompAbi, LoopsCoverEveryIterationOnce) {
  std::vector<std::atomic<int>> hit(1000);
  parallel([&] {
    long lo = 0, hi = 0;
    for (bool more = GOMP_loop_dynamic_start(0, 1000, 1, 7, &lo, &hi); more;
         more = GOMP_loop_dynamic_next(&lo, &hi))
      for (long i = lo; i < hi; ++i) hit[std::size_t(i)]++;
    GOMP_loop_end_nowait();
    for (bool more = GOMP_loop_guided_start(999, -1, -1, 2, &lo, &hi); more;
         more = GOMP_loop_guided_next(&lo, &hi))
      for (long i = lo; i > hi; --i) hit[std::size_t(i)]++;
    GOMP_loop_end();
    for (bool more = GOMP_loop_start(0, 1000, 3, 1 /*static*/, 5, &lo, &hi, nullptr, nullptr); more;
         more = GOMP_loop_static_next(&lo, &hi))
      for (long i = lo; i < hi; i += 3) hit[std::size_t(i)]++;
    GOMP_loop_end();
    unsigned long long ulo = 0, uhi = 0;
    for (bool more = GOMP_loop_ull_static_start(true, 0, 1000, 1, 0, &ulo, &uhi); more;
         more = GOMP_loop_ull_static_next(&ulo, &uhi))
      for (auto i = ulo; i < uhi; ++i) hit[std::size_t(i)]++;
    GOMP_loop_end();
  });
  for (std::size_t i = 0; i < hit.size(); ++i) ASSERT_EQ(hit[i], (i % 3 == 0) ? 4 : 3) << i;
}

TEST_F(GompAbi, OrderedSingleCopyprivateSections) {
  std::vector<long> order;
  std::atomic<int> singles{0}, wrong_copy{0}, sections{0};
  parallel([&] {
    long lo = 0, hi = 0;
    for (bool more = GOMP_loop_ordered_static_start(0, 200, 1, 3, &lo, &hi); more;
         more = GOMP_loop_ordered_static_next(&lo, &hi))
      for (long i = lo; i < hi; ++i) {
        GOMP_ordered_start();
        order.push_back(i);
        GOMP_ordered_end();
      }
    GOMP_loop_end();
    if (GOMP_single_start()) singles++;
    GOMP_barrier();
    int value = 0;
    int* shared = static_cast<int*>(GOMP_single_copy_start());
    if (!shared) {
      value = 42;
      GOMP_single_copy_end(&value);
    } else {
      value = *shared;
    }
    GOMP_barrier();
    if (value != 42) wrong_copy++;
    for (unsigned s = GOMP_sections_start(5); s; s = GOMP_sections_next()) sections += int(s);
    GOMP_sections_end();
  });
  ASSERT_EQ(order.size(), 200u);
  for (long i = 0; i < 200; ++i) EXPECT_EQ(order[std::size_t(i)], i);
  EXPECT_EQ(singles, 1);
  EXPECT_EQ(wrong_copy, 0);
  EXPECT_EQ(sections, 15);
}

struct Step {
  int* cell;
  int add;
};

void step_body(void* p) {
  auto* s = static_cast<Step*>(p);
  *s->cell = *s->cell * 10 + s->add;
}

TEST_F(GompAbi, TasksFollowBothDependLayouts) {
  int cell = 0;
  parallel([&] {
    if (GOMP_single_start()) {
      for (int k = 1; k <= 6; ++k) {
        Step s{&cell, k};
        // Old layout {n, n_out, addr} and the GCC 9+ one {0, n, n_out, n_mutex, n_in, addr}.
        void* old_layout[] = {reinterpret_cast<void*>(1), reinterpret_cast<void*>(1), &cell};
        void* new_layout[] = {
            nullptr, reinterpret_cast<void*>(1), reinterpret_cast<void*>(1), nullptr, nullptr,
            &cell};
        GOMP_task(step_body, &s, nullptr, sizeof s, alignof(Step), true, 8 /*depend*/,
                  k % 2 ? old_layout : new_layout, 0, nullptr);
      }
      GOMP_taskwait();
    }
    GOMP_barrier();
  });
  EXPECT_EQ(cell, 123456);
}

struct Range {
  long start, end;
  std::atomic<long>* sum;
};

TEST_F(GompAbi, TaskloopAndBarrierWaitForTasks) {
  std::atomic<long> sum{0}, late{0};
  parallel([&] {
    Range r{0, 0, &sum};
    if (GOMP_single_start())
      GOMP_taskloop(
          [](void* p) {
            auto* r = static_cast<Range*>(p);
            for (long i = r->start; i < r->end; ++i) *r->sum += i;
          },
          &r, nullptr, sizeof r, alignof(Range), 1u << 10 /*if*/, 9, 0, 0, 1000, 1);
    std::atomic<long>* l = &late;
    GOMP_task([](void* p) { (**static_cast<std::atomic<long>**>(p))++; }, &l, nullptr, sizeof l,
              alignof(void*), true, 0, nullptr, 0, nullptr);
    GOMP_barrier();
    if (late != kTeam) late = -1000;
  });
  EXPECT_EQ(sum, 999 * 1000 / 2);
  EXPECT_EQ(late, kTeam);
}

// Every worker may be the master of a region started in a task: teams are
// sealed at the members they could gather instead of waiting forever.
TEST_F(GompAbi, RegionsInsideTasksNeverDeadlock) {
  std::atomic<int> consistent{0};
  std::atomic<int>* out = &consistent;
  for (int k = 0; k < 8; ++k)
    GOMP_task(
        [](void* p) {
          std::atomic<int> members{0}, size{0};
          parallel([&] {
            members++;
            size = omp_get_num_threads();
          });
          if (members == size) (**static_cast<std::atomic<int>**>(p))++;
        },
        &out, nullptr, sizeof out, alignof(void*), true, 0, nullptr, 0, nullptr);
  GOMP_taskwait();
  EXPECT_EQ(consistent, 8);
}

TEST_F(GompAbi, NestedRegionsRunSerialised) {
  std::atomic<int> inner{0};
  parallel(
      [&] {
        parallel([&] {
          if (omp_get_num_threads() == 1 && omp_get_level() == 2) inner++;
        });
      },
      2);
  EXPECT_EQ(inner, 2);
}

}  // namespace
