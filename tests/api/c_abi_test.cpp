// The C ABI: two-step tasks (create -> fill the argument block -> add deps ->
// submit), discard, options, taskwait_on, and bad input reported as
// JOULE_ERR_INVALID with a message from joule_last_error().
#include "runtime_sweep.hpp"
#include "test_support.hpp"

#include <joule/joule.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>

namespace {

using namespace joule_test;

struct write_args {
  long* target;
  long value;
  int spin_us;
};

void write_body(void* p) {
  auto* a = static_cast<write_args*>(p);
  spin_for(std::chrono::microseconds(a->spin_us));
  *a->target = a->value;
}

struct read_args {
  const long* source;
  long* seen;
};

void read_body(void* p) {
  auto* a = static_cast<read_args*>(p);
  *a->seen = *a->source;
}

void count_body(void* p) { (*static_cast<std::atomic<int>**>(p))->fetch_add(1); }

void submit_write(long* target, long value, int spin_us) {
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(&write_body, sizeof(write_args), nullptr, &t, &args), JOULE_OK);
  ASSERT_NE(t, nullptr);
  ASSERT_NE(args, nullptr);
  *static_cast<write_args*>(args) = {target, value, spin_us};
  ASSERT_EQ(joule_task_add_dep(t, JOULE_DEP_OUT, target, sizeof *target), JOULE_OK);
  ASSERT_EQ(joule_task_submit(t), JOULE_OK);
}

void submit_read(const long* source, long* seen) {
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(&read_body, sizeof(read_args), nullptr, &t, &args), JOULE_OK);
  *static_cast<read_args*>(args) = {source, seen};
  const joule_dep_t deps[] = {{JOULE_DEP_IN, source, sizeof *source, nullptr},
                              {JOULE_DEP_OUT, seen, sizeof *seen, nullptr}};
  ASSERT_EQ(joule_task_add_deps(t, deps, 2), JOULE_OK);
  ASSERT_EQ(joule_task_submit(t), JOULE_OK);
}

bool has_message() {
  const char* m = joule_last_error();
  return m != nullptr && std::strlen(m) > 0;
}

class CAbi : public sweep_test {};

TEST_P(CAbi, TwoStepTasksAreOrderedByDeps) {
  long x = 0;
  long seen[10] = {};
  for (int i = 0; i < 10; ++i) {
    submit_write(&x, i + 1, i % 2 ? 300 : 0);
    submit_read(&x, &seen[i]);
  }
  ASSERT_EQ(joule_taskwait(), JOULE_OK);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(seen[i], i + 1) << i;
}

void alignment_body(void* p) {
  auto* out = *static_cast<std::atomic<std::uintptr_t>**>(p);
  out->fetch_or(reinterpret_cast<std::uintptr_t>(p) & 15u);
}

TEST_P(CAbi, ArgumentBlockAlignedTo16) {
  std::atomic<std::uintptr_t> misalign{0};
  for (std::size_t size : {1u, 8u, 24u, 100u, 4096u}) {
    joule_task_t* t = nullptr;
    void* args = nullptr;
    ASSERT_EQ(joule_task_create(&alignment_body, size < 8 ? 8 : size, nullptr, &t, &args),
              JOULE_OK);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(args) % 16, 0u) << size;
    *static_cast<std::atomic<std::uintptr_t>**>(args) = &misalign;
    ASSERT_EQ(joule_task_submit(t), JOULE_OK);
  }
  ASSERT_EQ(joule_taskwait(), JOULE_OK);
  EXPECT_EQ(misalign.load(), 0u);
}

std::atomic<int> g_no_args_runs{0};
void no_args_body(void*) { g_no_args_runs.fetch_add(1); }

TEST_P(CAbi, ZeroSizedArguments) {
  g_no_args_runs = 0;
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(&no_args_body, 0, nullptr, &t, &args), JOULE_OK);
  ASSERT_EQ(joule_task_submit(t), JOULE_OK);
  ASSERT_EQ(joule_taskwait(), JOULE_OK);
  EXPECT_EQ(g_no_args_runs.load(), 1);
}

struct final_args {
  std::atomic<int>* in_final;
};
void final_body(void* p) {
  if (joule_in_final()) static_cast<final_args*>(p)->in_final->fetch_add(1);
}

TEST_P(CAbi, OptionsAreAccepted) {
  std::atomic<int> in_final{0};
  joule_task_options_t opts = JOULE_TASK_OPTIONS_INIT;
  opts.label = "c_abi_test";
  opts.priority = 5;
  opts.final_ = 1;
  opts.cost = 2.5;
  opts.affinity = 3;
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(&final_body, sizeof(final_args), &opts, &t, &args), JOULE_OK);
  static_cast<final_args*>(args)->in_final = &in_final;
  ASSERT_EQ(joule_task_submit(t), JOULE_OK);
  ASSERT_EQ(joule_taskwait(), JOULE_OK);
  EXPECT_EQ(in_final.load(), 1);
}

// An older client passes a shorter options struct: the ABI grows at the end.
TEST_P(CAbi, ShorterOptionsStruct) {
  std::atomic<int> runs{0};
  joule_task_options_t opts = JOULE_TASK_OPTIONS_INIT;
  opts.struct_size = offsetof(joule_task_options_t, cost);
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(&count_body, sizeof(void*), &opts, &t, &args), JOULE_OK);
  *static_cast<std::atomic<int>**>(args) = &runs;
  ASSERT_EQ(joule_task_submit(t), JOULE_OK);
  ASSERT_EQ(joule_taskwait(), JOULE_OK);
  EXPECT_EQ(runs.load(), 1);
}

// A discarded task never runs and its dependencies block nobody.
TEST_P(CAbi, DiscardedTaskNeverRuns) {
  std::atomic<int> runs{0};
  long x = 0;
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(&count_body, sizeof(void*), nullptr, &t, &args), JOULE_OK);
  *static_cast<std::atomic<int>**>(args) = &runs;
  ASSERT_EQ(joule_task_add_dep(t, JOULE_DEP_OUT, &x, sizeof x), JOULE_OK);
  ASSERT_EQ(joule_task_discard(t), JOULE_OK);
  long seen = -1;
  submit_read(&x, &seen);
  ASSERT_EQ(joule_taskwait(), JOULE_OK);
  EXPECT_EQ(runs.load(), 0);
  EXPECT_EQ(seen, 0);
}

TEST_P(CAbi, TaskwaitOn) {
  long x = 0;
  submit_write(&x, 77, 500);
  const joule_dep_t dep = {JOULE_DEP_IN, &x, sizeof x, nullptr};
  ASSERT_EQ(joule_taskwait_on(&dep, 1), JOULE_OK);
  EXPECT_EQ(x, 77);
  ASSERT_EQ(joule_taskwait(), JOULE_OK);
}

void worker_id_body(void* p) {
  const int id = joule_worker_id();
  if (id < 0 || id >= joule_num_workers()) (*static_cast<std::atomic<int>**>(p))->fetch_add(1);
}

TEST_P(CAbi, WorkerQueries) {
  EXPECT_EQ(joule_num_workers(), workers());
  EXPECT_EQ(joule_worker_id(), 0);
  std::atomic<int> bad{0};
  for (int i = 0; i < 100; ++i) {
    joule_task_t* t = nullptr;
    void* args = nullptr;
    ASSERT_EQ(joule_task_create(&worker_id_body, sizeof(void*), nullptr, &t, &args), JOULE_OK);
    *static_cast<std::atomic<int>**>(args) = &bad;
    ASSERT_EQ(joule_task_submit(t), JOULE_OK);
  }
  ASSERT_EQ(joule_taskwait(), JOULE_OK);
  EXPECT_EQ(bad.load(), 0);
  joule_iteration_boundary();  // callable at any time
}

TEST_P(CAbi, Version) {
  ASSERT_NE(joule_version(), nullptr);
  EXPECT_NE(std::string(joule_version()).find("0.1"), std::string::npos);
}

// ---- bad input ------------------------------------------------------------

TEST_P(CAbi, NullBodyIsInvalid) {
  joule_task_t* t = nullptr;
  void* args = nullptr;
  EXPECT_EQ(joule_task_create(nullptr, 8, nullptr, &t, &args), JOULE_ERR_INVALID);
  EXPECT_TRUE(has_message());
}

TEST_P(CAbi, NullOutPointersAreInvalid) {
  joule_task_t* t = nullptr;
  void* args = nullptr;
  EXPECT_EQ(joule_task_create(&no_args_body, 8, nullptr, nullptr, &args), JOULE_ERR_INVALID);
  EXPECT_TRUE(has_message());
  EXPECT_EQ(joule_task_create(&no_args_body, 8, nullptr, &t, nullptr), JOULE_ERR_INVALID);
  EXPECT_TRUE(has_message());
  EXPECT_EQ(joule_task_submit(nullptr), JOULE_ERR_INVALID);
  EXPECT_EQ(joule_task_add_dep(nullptr, JOULE_DEP_IN, &t, 1), JOULE_ERR_INVALID);
}

TEST_P(CAbi, BadDependencyIsInvalidAndTaskCanBeDiscarded) {
  std::atomic<int> runs{0};
  long x = 0;
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(&count_body, sizeof(void*), nullptr, &t, &args), JOULE_OK);
  *static_cast<std::atomic<int>**>(args) = &runs;
  // Unknown kinds: the parameter is an int, so any value may come in.
  for (int kind : {0, 7, 1000, -1}) {
    EXPECT_EQ(joule_task_add_dep(t, kind, &x, sizeof x), JOULE_ERR_INVALID) << kind;
    EXPECT_TRUE(has_message());
  }
  // A region running past the end of the address space.
  const void* near_end = reinterpret_cast<const void*>(UINTPTR_MAX - 8);
  EXPECT_EQ(joule_task_add_dep(t, JOULE_DEP_IN, near_end, 64), JOULE_ERR_INVALID);
  EXPECT_TRUE(has_message());
  EXPECT_EQ(joule_task_add_dep(t, JOULE_DEP_IN, &x, SIZE_MAX), JOULE_ERR_INVALID);
  const joule_dep_t bad[] = {{JOULE_DEP_IN, &x, sizeof x, nullptr}, {42, &x, sizeof x, nullptr}};
  EXPECT_EQ(joule_task_add_deps(t, bad, 2), JOULE_ERR_INVALID);
  EXPECT_EQ(joule_task_add_deps(t, nullptr, 1), JOULE_ERR_INVALID);
  EXPECT_EQ(joule_task_discard(t), JOULE_OK);
  EXPECT_EQ(joule_taskwait(), JOULE_OK);
  EXPECT_EQ(runs.load(), 0);
}

TEST_P(CAbi, BadTaskwaitOnIsInvalid) {
  long x = 0;
  const joule_dep_t bad_kind = {77, &x, sizeof x, nullptr};
  EXPECT_EQ(joule_taskwait_on(&bad_kind, 1), JOULE_ERR_INVALID);
  EXPECT_TRUE(has_message());
  const joule_dep_t overflow = {JOULE_DEP_IN, reinterpret_cast<const void*>(UINTPTR_MAX - 3), 16,
                                nullptr};
  EXPECT_EQ(joule_taskwait_on(&overflow, 1), JOULE_ERR_INVALID);
  EXPECT_EQ(joule_taskwait_on(nullptr, 1), JOULE_ERR_INVALID);
  EXPECT_EQ(joule_taskwait_on(nullptr, 0), JOULE_OK);
}

// Sizes whose header and alignment arithmetic would overflow size_t are
// rejected (JOULE_ERR_INVALID), sizes no allocator can give fail with
// JOULE_ERR_NOMEM; either way no task is made and the outputs are NULL.
TEST_P(CAbi, HugeArgumentSizesCreateNothing) {
  const std::size_t invalid[] = {SIZE_MAX,       SIZE_MAX - 1,    SIZE_MAX - 15,   SIZE_MAX - 64,
                                 SIZE_MAX - 300, SIZE_MAX - 4096, SIZE_MAX / 2 + 1};
  for (std::size_t size : invalid) {
    joule_task_t* t = reinterpret_cast<joule_task_t*>(&t);
    void* args = &t;
    EXPECT_EQ(joule_task_create(&no_args_body, size, nullptr, &t, &args), JOULE_ERR_INVALID)
        << size;
    EXPECT_TRUE(has_message());
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(args, nullptr);
  }
  joule_task_t* t = nullptr;
  void* args = nullptr;
  EXPECT_EQ(joule_task_create(&no_args_body, std::size_t(1) << 60, nullptr, &t, &args),
            JOULE_ERR_NOMEM);
  EXPECT_EQ(t, nullptr);
  // Normal sizes still work, pooled and not.
  std::atomic<int> runs{0};
  for (std::size_t size : {sizeof(void*), std::size_t(64) << 10}) {
    ASSERT_EQ(joule_task_create(&count_body, size, nullptr, &t, &args), JOULE_OK);
    std::memset(args, 0, size);
    *static_cast<std::atomic<int>**>(args) = &runs;
    ASSERT_EQ(joule_task_submit(t), JOULE_OK);
  }
  EXPECT_EQ(joule_taskwait(), JOULE_OK);
  EXPECT_EQ(runs.load(), 2);
}

// A reduction's private copies are as large as its region: a region larger
// than any object is refused when it is added.
TEST_P(CAbi, HugeReductionRegionIsInvalid) {
  static long x = 0;
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(&no_args_body, 8, nullptr, &t, &args), JOULE_OK);
  const std::size_t to_end = UINTPTR_MAX - reinterpret_cast<std::uintptr_t>(&x);
  const joule_reduction_op_t* sum = joule_reduction_op(JOULE_RED_SUM, JOULE_TYPE_LONG);
  for (std::size_t bytes : {to_end, to_end - 63, std::size_t(PTRDIFF_MAX) + 1}) {
    const joule_dep_t d = {JOULE_DEP_REDUCTION, &x, bytes, sum};
    EXPECT_EQ(joule_task_add_deps(t, &d, 1), JOULE_ERR_INVALID) << bytes;
  }
  EXPECT_EQ(joule_task_discard(t), JOULE_OK);
  EXPECT_EQ(joule_taskwait(), JOULE_OK);
}

// Counts no array could hold (n * sizeof element overflows) are refused
// before anything reads the array.
TEST_P(CAbi, ImpossibleArrayCountsAreInvalid) {
  long x = 0;
  const joule_dep_t d = {JOULE_DEP_IN, &x, sizeof x, nullptr};
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(&no_args_body, 8, nullptr, &t, &args), JOULE_OK);
  EXPECT_EQ(joule_task_add_deps(t, &d, SIZE_MAX), JOULE_ERR_INVALID);
  EXPECT_EQ(joule_task_add_deps(t, &d, SIZE_MAX / sizeof(joule_dep_t) + 1), JOULE_ERR_INVALID);
  EXPECT_EQ(joule_task_discard(t), JOULE_OK);
  EXPECT_EQ(joule_taskwait_on(&d, SIZE_MAX / 2), JOULE_ERR_INVALID);
  EXPECT_TRUE(has_message());
}

// The message belongs to the thread that got the error.
TEST_P(CAbi, LastErrorIsPerThread) {
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(nullptr, 8, nullptr, &t, &args), JOULE_ERR_INVALID);
  const std::string mine = joule_last_error();
  std::string other = "unset";
  std::thread([&] {
    const char* m = joule_last_error();
    other = m ? m : "";
  }).join();
  EXPECT_FALSE(mine.empty());
  EXPECT_NE(other, mine);
  EXPECT_TRUE(other.empty()) << other;
}

INSTANTIATE_TEST_SUITE_P(Sweep, CAbi, testing::ValuesIn(worker_sweep()), config_namer{});

}  // namespace
