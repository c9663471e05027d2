// taskloop (per-index and per-chunk forms), parallel_for and joule_taskloop:
// every index is visited exactly once, chunks tile the range, and grain-size
// edge cases (0, 1, larger than the range, empty and reversed ranges,
// negative bounds, the ends of int64) behave.
#include "runtime_sweep.hpp"
#include "test_support.hpp"

#include <joule/joule.h>
#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace {

using namespace joule_test;

// Visits [begin, end) with the per-index form and checks each index once.
void check_per_index(std::int64_t begin, std::int64_t end, std::int64_t grain) {
  SCOPED_TRACE("range [" + std::to_string(begin) + ", " + std::to_string(end) + ") grain " +
               std::to_string(grain));
  const std::int64_t n = std::max<std::int64_t>(0, end - begin);
  auto hits = std::make_unique<std::atomic<int>[]>(static_cast<std::size_t>(n) + 1);
  std::atomic<int> outside{0};
  joule::taskloop(begin, end, grain, [&](std::int64_t i) {
    if (i < begin || i >= end) {
      outside.fetch_add(1);
    } else {
      hits[static_cast<std::size_t>(i - begin)].fetch_add(1);
    }
  });
  EXPECT_EQ(outside.load(), 0);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << begin + i;
}

using chunk_list = std::vector<std::pair<std::int64_t, std::int64_t>>;

// Runs the chunk form and returns the chunks, sorted.
chunk_list run_chunks(std::int64_t begin, std::int64_t end, std::int64_t grain) {
  std::mutex m;
  chunk_list chunks;
  joule::taskloop(begin, end, grain, [&](std::int64_t lo, std::int64_t hi) {
    std::lock_guard lock(m);
    chunks.emplace_back(lo, hi);
  });
  std::sort(chunks.begin(), chunks.end());
  return chunks;
}

// Chunks are non-empty, tile [begin, end) exactly, and (grain > 0) number at
// most ceil(n / grain).
void check_chunks(std::int64_t begin, std::int64_t end, std::int64_t grain) {
  SCOPED_TRACE("chunks of [" + std::to_string(begin) + ", " + std::to_string(end) + ") grain " +
               std::to_string(grain));
  const chunk_list chunks = run_chunks(begin, end, grain);
  if (end <= begin) {
    EXPECT_TRUE(chunks.empty());
    return;
  }
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.front().first, begin);
  EXPECT_EQ(chunks.back().second, end);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_LT(chunks[i].first, chunks[i].second) << "empty chunk";
    if (i > 0) {
      EXPECT_EQ(chunks[i - 1].second, chunks[i].first) << "gap or overlap";
    }
  }
  if (grain > 0) {
    const auto n = static_cast<std::uint64_t>(end - begin);
    const auto g = static_cast<std::uint64_t>(grain);
    EXPECT_LE(chunks.size(), (n + g - 1) / g);
  }
}

class Taskloop : public sweep_test {};

TEST_P(Taskloop, PerIndexGrainSizes) {
  for (std::int64_t grain : {0, 1, 2, 7, 64, 999, 1000, 1001, 100000})
    check_per_index(0, 1000, grain);
}

TEST_P(Taskloop, ChunkGrainSizes) {
  for (std::int64_t grain : {0, 1, 3, 100, 999, 1000, 1001, 1 << 20}) check_chunks(0, 1000, grain);
}

TEST_P(Taskloop, GrainLargerThanRangeIsOneChunk) {
  const chunk_list chunks = run_chunks(10, 20, 100);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0], (chunk_list::value_type{10, 20}));
}

TEST_P(Taskloop, EmptyAndReversedRanges) {
  for (auto [b, e] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {5, 5}, {10, 0}, {-1, -5}}) {
    for (std::int64_t grain : {0, 1, 4}) {
      check_per_index(b, e, grain);
      check_chunks(b, e, grain);
    }
  }
}

TEST_P(Taskloop, NegativeBounds) {
  check_per_index(-500, 500, 0);
  check_per_index(-500, 500, 33);
  check_per_index(-1000, -1, 7);
  check_chunks(-500, 500, 33);
}

TEST_P(Taskloop, Int64Extremes) {
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  check_chunks(hi - 10, hi, 3);
  check_chunks(lo, lo + 10, 3);
  check_per_index(hi - 10, hi, 0);
  check_per_index(lo, lo + 10, 1);
}

// A range wider than INT64_MAX: end - begin overflows int64. The runtime may
// reject it, but must not split it wrongly.
TEST_P(Taskloop, WholeInt64Range) {
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  chunk_list chunks;
  try {
    chunks = run_chunks(lo, hi, hi / 2);
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_INVALID);
    return;
  }
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.front().first, lo);
  EXPECT_EQ(chunks.back().second, hi);
  EXPECT_LE(chunks.size(), 8u);
  for (std::size_t i = 1; i < chunks.size(); ++i) EXPECT_EQ(chunks[i - 1].second, chunks[i].first);
}

// A negative grain size is either rejected as invalid or treated as automatic.
TEST_P(Taskloop, NegativeGrainSize) {
  try {
    check_per_index(0, 100, -5);
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_INVALID);
  }
}

TEST_P(Taskloop, OtherIntegerTypes) {
  std::atomic<long> sum{0};
  joule::taskloop(0u, 1000u, 7u, [&](unsigned i) { sum.fetch_add(i); });
  EXPECT_EQ(sum.load(), 999 * 1000 / 2);
  sum = 0;
  joule::taskloop(std::size_t{0}, std::size_t{1000}, std::size_t{0},
                  [&](std::size_t i) { sum.fetch_add(static_cast<long>(i)); });
  EXPECT_EQ(sum.load(), 999 * 1000 / 2);
  sum = 0;
  joule::taskloop(short{-100}, short{100}, short{9}, [&](short i) { sum.fetch_add(i); });
  EXPECT_EQ(sum.load(), -100);
}

TEST_P(Taskloop, ParallelForSum) {
  std::vector<long> v(10000);
  joule::parallel_for(0, 10000, [&](int i) { v[i] = i; });
  long s = 0;
  for (long x : v) s += x;
  EXPECT_EQ(s, 9999L * 10000 / 2);
  std::atomic<long> sum{0};
  joule::parallel_for(std::int64_t{-50}, std::int64_t{50},
                      [&](std::int64_t i) { sum.fetch_add(i); });
  EXPECT_EQ(sum.load(), -50);
}

TEST_P(Taskloop, NestedInsideTasksAndLoops) {
  std::atomic<long> sum{0};
  for (int t = 0; t < 4; ++t)
    joule::spawn([&sum] {
      joule::taskloop(0, 10, 1, [&sum](int i) {
        joule::parallel_for(0, 100, [&sum, i](int j) { sum.fetch_add(i * 100 + j); });
      });
    });
  joule::taskwait();
  EXPECT_EQ(sum.load(), 4 * (999L * 1000 / 2));
}

// The implicit taskgroup covers the chunks only: an unrelated long sibling
// may still be running when taskloop returns.
TEST_P(Taskloop, DoesNotWaitForUnrelatedSibling) {
  if (workers() < 2) GTEST_SKIP() << "needs a second worker to hold the long task";
  std::atomic<bool> started{false}, release{false}, finished{false}, in_time{false};
  joule::spawn([&] {
    started.store(true);
    in_time.store(wait_flag(release));
    finished.store(true);
  });
  ASSERT_TRUE(eventually([&] { return started.load(); }));
  std::atomic<int> count{0};
  joule::taskloop(0, 100, 10, [&](int) { count.fetch_add(1); });
  const bool still_running = !finished.load();
  release.store(true);
  joule::taskwait();
  EXPECT_EQ(count.load(), 100);
  EXPECT_TRUE(still_running);
  EXPECT_TRUE(in_time.load());
}

struct c_loop_args {
  std::atomic<long> sum{0};
  std::atomic<int> calls{0};
};

void c_loop_body(void* args, std::int64_t lo, std::int64_t hi) {
  auto* a = static_cast<c_loop_args*>(args);
  a->calls.fetch_add(1);
  for (std::int64_t i = lo; i < hi; ++i) a->sum.fetch_add(i);
}

TEST_P(Taskloop, CAbi) {
  c_loop_args a;
  ASSERT_EQ(joule_taskloop(&c_loop_body, &a, 0, 1000, 100, nullptr), JOULE_OK);
  EXPECT_EQ(a.sum.load(), 999 * 1000 / 2);
  EXPECT_GE(a.calls.load(), 1);
  EXPECT_LE(a.calls.load(), 10);
  joule_task_options_t opts = JOULE_TASK_OPTIONS_INIT;
  opts.priority = 3;
  a.sum = 0;
  ASSERT_EQ(joule_taskloop(&c_loop_body, &a, -10, 10, 0, &opts), JOULE_OK);
  EXPECT_EQ(a.sum.load(), -10);
  EXPECT_EQ(joule_taskloop(nullptr, &a, 0, 10, 1, nullptr), JOULE_ERR_INVALID);
  EXPECT_NE(joule_last_error(), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Sweep, Taskloop, testing::ValuesIn(scheduler_sweep()), config_namer{});

}  // namespace
