// Task reductions through the GOMP ABI, called the way GCC 12's lowered
// code calls it (gcc -fopenmp -fdump-tree-ompexp shows it): a descriptor
// per construct, private blocks indexed by omp_get_thread_num() or found by
// GOMP_task_reduction_remap, and the fold over omp_get_num_threads()
// blocks after the construct. joule runs with 32 workers, so small teams
// leave most workers outside the team; each task body checks that no other
// body runs under its thread number at the same time. The sanitizer builds
// run this (the gcc -fopenmp programs are not instrumented).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "joule/joule.h"

extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
unsigned GOMP_parallel_reductions(void (*fn)(void*), void* data, unsigned num_threads,
                                  unsigned flags);
bool GOMP_single_start(void);
void GOMP_barrier(void);
void GOMP_task(void (*)(void*), void*, void (*)(void*, void*), long, long, bool, unsigned, void**,
               int, void*);
void GOMP_taskgroup_start(void);
void GOMP_taskgroup_end(void);
void GOMP_taskgroup_reduction_register(std::uintptr_t*);
void GOMP_taskgroup_reduction_unregister(std::uintptr_t*);
void GOMP_task_reduction_remap(std::size_t, std::size_t, void**);
void GOMP_taskloop(void (*)(void*), void*, void (*)(void*, void*), long, long, unsigned,
                   unsigned long, int, long, long, long);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
}

namespace {

constexpr std::uintptr_t kChunk = 64;                             // a long, its flag byte, padding
constexpr unsigned kTaskloopReduction = (1u << 12) | (1u << 10);  // reduction, if(true)
constexpr int kMaxTeam = 64;

// One variable: [0] count, [1] chunk, [2] alignment, [3] reserved (GCC
// writes -1), [4]..[6] runtime, [7] address, [8] offset, [9] runtime.
struct Descriptor {
  std::uintptr_t w[10];
  explicit Descriptor(long* var) : w{1, kChunk, 64, ~std::uintptr_t(0), 0, 0, 0, 0, 0, 0} {
    w[7] = reinterpret_cast<std::uintptr_t>(var);
  }
};

std::atomic<int> g_inside[kMaxTeam];
std::atomic<int> g_shared_number{0};

// What a task body does with its copy: initialise it on first use, add,
// and check that its thread number is its own for the while.
void add_to_copy(long* copy, long value) {
  const int tn = omp_get_thread_num();
  if (g_inside[tn].fetch_add(1) != 0) g_shared_number++;
  auto* flag = reinterpret_cast<bool*>(copy + 1);
  if (!*flag) {
    *flag = true;
    *copy = 0;
  }
  *copy += value;
  std::this_thread::yield();
  g_inside[tn].fetch_sub(1);
}

long fold(const Descriptor& d, long original, int blocks) {
  for (int k = 0; k < blocks; ++k) {
    const auto* copy = reinterpret_cast<const long*>(d.w[2] + std::uintptr_t(k) * kChunk);
    if (*reinterpret_cast<const bool*>(copy + 1)) original += *copy;
  }
  return original;
}

struct InReduction {
  long* var;
  long value;
};

void in_reduction_task(void* p) {
  auto* a = static_cast<InReduction*>(p);
  void* ptrs[2] = {a->var, nullptr};
  GOMP_task_reduction_remap(1, 1, ptrs);
  EXPECT_EQ(ptrs[1], static_cast<void*>(a->var));  // cntorig: the original back
  add_to_copy(static_cast<long*>(ptrs[0]), a->value);
}

void spawn_in_reduction(long* var, long value) {
  InReduction a{var, value};
  GOMP_task(in_reduction_task, &a, nullptr, sizeof a, alignof(InReduction), true, 0, nullptr, 0,
            nullptr);
}

template <class F>
void parallel(F f, unsigned n) {
  GOMP_parallel([](void* d) { (*static_cast<F*>(d))(); }, &f, n, 0);
}

class GompTaskReduction : public ::testing::TestWithParam<unsigned> {
 protected:
  static void SetUpTestSuite() {
    const char* keys[] = {"JOULE_WORKERS"};
    const char* values[] = {"32"};
    ASSERT_EQ(joule_init_with(keys, values, 1), JOULE_OK) << joule_last_error();
  }
  static void TearDownTestSuite() { joule_finalize(); }
  void SetUp() override { g_shared_number = 0; }
  void TearDown() override { EXPECT_EQ(g_shared_number, 0) << "two bodies shared a number"; }
};

// taskgroup task_reduction(+:sum) in a single, 500 task in_reduction(+:sum).
TEST_P(GompTaskReduction, TaskgroupInReductionTasks) {
  long sum = 7;
  parallel(
      [&] {
        if (!GOMP_single_start()) return GOMP_barrier();
        Descriptor d(&sum);
        GOMP_taskgroup_start();
        GOMP_taskgroup_reduction_register(d.w);
        for (long i = 1; i <= 500; ++i) spawn_in_reduction(&sum, i);
        GOMP_taskgroup_end();
        sum = fold(d, sum, omp_get_num_threads());
        GOMP_taskgroup_reduction_unregister(d.w);
        GOMP_barrier();
      },
      GetParam());
  EXPECT_EQ(sum, 7 + 500 * 501 / 2);
}

// parallel reduction(task, +:sum): every implicit task adds 1000 to its own
// block and makes 50 in_reduction tasks.
TEST_P(GompTaskReduction, ParallelReductionsWithTasks) {
  long sum = 0;
  Descriptor d(&sum);
  struct Data {
    std::uintptr_t* desc;
    long* sum;
  } data{d.w, &sum};
  const unsigned blocks = GOMP_parallel_reductions(
      [](void* p) {
        auto* dt = static_cast<Data*>(p);
        auto* mine =
            reinterpret_cast<long*>(dt->desc[2] + std::uintptr_t(omp_get_thread_num()) * kChunk);
        *reinterpret_cast<bool*>(mine + 1) = true;
        *mine += 1000;
        for (long i = 0; i < 50; ++i) spawn_in_reduction(dt->sum, i);
      },
      &data, GetParam(), 0);
  ASSERT_GE(blocks, 1u);
  sum = fold(d, sum, int(blocks));
  GOMP_taskgroup_reduction_unregister(d.w);
  EXPECT_EQ(sum, long(blocks) * (1000 + 50 * 49 / 2));
}

// taskloop reduction(+:sum): each chunk indexes the blocks by its number.
TEST_P(GompTaskReduction, TaskloopReductionChunks) {
  long sum = 0;
  parallel(
      [&] {
        if (!GOMP_single_start()) return GOMP_barrier();
        Descriptor d(&sum);
        struct Chunk {
          long start, end;
          std::uintptr_t* desc;
        } args{0, 0, d.w};
        auto body = [](void* p) {
          auto* c = static_cast<Chunk*>(p);
          auto* mine =
              reinterpret_cast<long*>(c->desc[2] + std::uintptr_t(omp_get_thread_num()) * kChunk);
          for (long i = c->start; i < c->end; ++i) add_to_copy(mine, i);
        };
        GOMP_taskloop(body, &args, nullptr, sizeof args, alignof(Chunk), kTaskloopReduction, 40, 0,
                      0, 2000, 1);
        sum = fold(d, sum, omp_get_num_threads());
        GOMP_taskgroup_reduction_unregister(d.w);
        GOMP_barrier();
      },
      GetParam());
  EXPECT_EQ(sum, 2000L * 1999 / 2);
}

INSTANTIATE_TEST_SUITE_P(Teams, GompTaskReduction, ::testing::Values(1u, 2u, 4u, 32u),
                         [](const auto& p) { return "team" + std::to_string(p.param); });

}  // namespace
