// Region geometry: two tasks with every pair of access kinds over regions that
// are identical, nested, partially overlapping, adjacent or disjoint (at int
// and at byte granularity). Where the regions overlap, the pair must be
// ordered (or, for two commutative updates, mutually exclusive); the final
// memory and what each task observed must equal a sequential run.
#include "dep_actions.hpp"
#include "runtime_sweep.hpp"
#include "test_support.hpp"

#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

using namespace joule_test;

struct byte_range {
  std::size_t start;
  std::size_t len;
};

bool overlap(byte_range a, byte_range b) {
  return a.start < b.start + b.len && b.start < a.start + a.len;
}

constexpr std::size_t kBytes = 128;

void fill_initial(std::uint8_t* mem) {
  for (std::size_t i = 0; i < kBytes; ++i) mem[i] = static_cast<std::uint8_t>(mix64(i) & 0xff);
}

class Regions : public sweep_test {
 protected:
  // One pair: task 1 (kind ka on a, slowed by a spin) then task 2 (kb on b).
  void check_pair(access_kind ka, byte_range a, access_kind kb, byte_range b) {
    SCOPED_TRACE(std::string(access_name(ka)) + " then " + access_name(kb));
    alignas(64) std::uint8_t expect[kBytes];
    fill_initial(expect);
    const std::uint64_t seq1 = perform(ka, expect, a.start, a.len, 1, 0);
    const std::uint64_t seq2 = perform(kb, expect, b.start, b.len, 2, 0);

    alignas(64) std::uint8_t mem[kBytes];
    fill_initial(mem);
    std::uint64_t obs1 = 0, obs2 = 0;
    std::atomic<bool> done1{false}, saw_done1{false};
    std::atomic<int> inflight{0}, max_inflight{0};
    auto enter = [&] {
      const int n = inflight.fetch_add(1) + 1;
      int m = max_inflight.load();
      while (n > m && !max_inflight.compare_exchange_weak(m, n)) {
      }
    };
    joule::spawn({make_dep(ka, mem + a.start, a.len)}, [&] {
      enter();
      obs1 = perform(ka, mem, a.start, a.len, 1, 200);
      inflight.fetch_sub(1);
      done1.store(true);
    });
    joule::spawn({make_dep(kb, mem + b.start, b.len)}, [&] {
      saw_done1.store(done1.load());
      enter();
      obs2 = perform(kb, mem, b.start, b.len, 2, 50);
      inflight.fetch_sub(1);
    });
    joule::taskwait();

    const relation rel = overlap(a, b) ? required_relation(ka, kb) : relation::none;
    if (rel == relation::ordered) {
      EXPECT_TRUE(saw_done1.load()) << "second task started before the first finished";
    }
    if (rel != relation::none) {
      EXPECT_EQ(max_inflight.load(), 1) << "tasks overlapped in time";
    }
    EXPECT_EQ(obs1, seq1);
    EXPECT_EQ(obs2, seq2);
    EXPECT_EQ(0, std::memcmp(mem, expect, kBytes)) << "final memory differs from sequential";
  }

  void check_all_pairs(byte_range a, byte_range b) {
    for (access_kind ka : all_accesses)
      for (access_kind kb : all_accesses) check_pair(ka, a, kb, b);
  }
};

TEST_P(Regions, Identical) { check_all_pairs({16, 32}, {16, 32}); }
TEST_P(Regions, NestedInnerSecond) { check_all_pairs({8, 48}, {20, 12}); }
TEST_P(Regions, NestedOuterSecond) { check_all_pairs({20, 12}, {8, 48}); }
TEST_P(Regions, NestedSharedStart) { check_all_pairs({16, 8}, {16, 24}); }
TEST_P(Regions, NestedSharedEnd) { check_all_pairs({16, 24}, {32, 8}); }
TEST_P(Regions, PartialOverlap) { check_all_pairs({8, 24}, {24, 24}); }
TEST_P(Regions, PartialOverlapReversed) { check_all_pairs({24, 24}, {8, 24}); }
TEST_P(Regions, Adjacent) { check_all_pairs({8, 16}, {24, 16}); }
TEST_P(Regions, AdjacentReversed) { check_all_pairs({24, 16}, {8, 16}); }
TEST_P(Regions, Disjoint) { check_all_pairs({0, 16}, {64, 16}); }
TEST_P(Regions, OneByteOverlap) { check_all_pairs({0, 9}, {8, 8}); }
TEST_P(Regions, OneByteRegions) { check_all_pairs({5, 1}, {5, 1}); }
TEST_P(Regions, ByteAdjacent) { check_all_pairs({0, 9}, {9, 7}); }

// Sixteen writers of 8-byte pieces, then one reader of the whole: the reader
// sees every piece; then a writer of the whole and sixteen piece readers.
TEST_P(Regions, PiecesThenWhole) {
  alignas(64) std::int64_t a[16] = {};
  for (int i = 0; i < 16; ++i) {
    joule::spawn({joule::out(a[i])}, [&a, i] {
      spin_for(std::chrono::microseconds(i % 4 * 50));
      a[i] = i + 1;
    });
  }
  std::int64_t sum = 0;
  joule::spawn({joule::in(a, 16)}, [&] {
    for (auto v : a) sum += v;
  });
  joule::spawn({joule::out(a, 16)}, [&] {
    spin_for(std::chrono::microseconds(200));
    for (auto& v : a) v = 100;
  });
  std::int64_t seen[16] = {};
  for (int i = 0; i < 16; ++i) joule::spawn({joule::in(a[i])}, [&seen, &a, i] { seen[i] = a[i]; });
  joule::taskwait();
  EXPECT_EQ(sum, 16 * 17 / 2);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(seen[i], 100) << i;
}

// Many readers of overlapping windows, then a writer of their union: the
// writer waits for every reader, and no reader sees its value.
TEST_P(Regions, OverlappingReadersThenWriter) {
  alignas(64) int a[64];
  for (int i = 0; i < 64; ++i) a[i] = i;
  std::atomic<bool> written{false};
  std::atomic<int> bad{0}, readers_done{0};
  for (int s = 0; s + 16 <= 64; s += 4) {
    joule::spawn({joule::in(a + s, 16)}, [&, s] {
      spin_for(std::chrono::microseconds(50));
      for (int i = s; i < s + 16; ++i)
        if (a[i] != i) bad.fetch_add(1);
      if (written.load()) bad.fetch_add(1);
      readers_done.fetch_add(1);
    });
  }
  int readers_seen = -1;
  joule::spawn({joule::out(a, 64)}, [&] {
    readers_seen = readers_done.load();
    written.store(true);
    for (int& v : a) v = -1;
  });
  joule::taskwait();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(readers_seen, 13);
  EXPECT_EQ(a[10], -1);
}

INSTANTIATE_TEST_SUITE_P(Sweep, Regions, testing::ValuesIn(full_sweep()), config_namer{});

}  // namespace
