// The dependency index's cost must not depend on address patterns: probe
// counts (deterministic, not timings) on the layouts users' data takes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "address_index.hpp"

namespace joule::engine {
namespace {

struct Stats {
  double mean_hit = 0;   // slots examined to find a present key
  double mean_miss = 0;  // ... to learn that an absent key is absent
  std::size_t max_hit = 0;
};

// Inserts every key, checks each is found, and measures probe lengths.
Stats measure(const std::vector<std::uintptr_t>& keys) {
  AddressIndex<int> index;
  std::vector<int> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) index.insert(keys[i], &values[i]);
  Stats s;
  std::size_t hit = 0, miss = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(index.find(keys[i]), &values[i]);
    const std::size_t n = index.probe_length(keys[i]);
    hit += n;
    s.max_hit = std::max(s.max_hit, n);
    miss += index.probe_length(keys[i] + 3);  // never a key: keys below are 4-aligned or random
  }
  s.mean_hit = double(hit) / double(keys.size());
  s.mean_miss = double(miss) / double(keys.size());
  return s;
}

std::vector<std::uintptr_t> strided(std::uintptr_t base, std::size_t n, std::uintptr_t stride) {
  std::vector<std::uintptr_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = base + i * stride;
  return keys;
}

// Linear probing at load <= 1/2 with well-spread homes: about 1.5 slots per
// hit and 2.5 per miss; the bounds leave room, a clustering hash exceeds
// them by orders of magnitude (thousands of slots per lookup).
void expect_bounded(const std::vector<std::uintptr_t>& keys, const std::string& what) {
  const Stats s = measure(keys);
  EXPECT_LE(s.mean_hit, 2.5) << what;
  EXPECT_LE(s.mean_miss, 4.0) << what;
  EXPECT_LE(s.max_hit, 64u) << what;
}

constexpr std::uintptr_t kMiB = 1u << 20;

TEST(AddressIndex, ContiguousCellsOfEverySize) {
  for (std::uintptr_t cell : {4u, 8u, 16u, 64u})
    for (std::uintptr_t base : {std::uintptr_t(0x10000000u), std::uintptr_t(0x7f0000001000u)})
      expect_bounded(strided(base, 40000, cell), "cell " + std::to_string(cell));
}

TEST(AddressIndex, OneByteCells) {
  std::vector<std::uintptr_t> keys = strided(0x5000000, 40000, 1);
  AddressIndex<int> index;  // keys + 3 would collide here: check hits only
  std::vector<int> v(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) index.insert(keys[i], &v[i]);
  std::size_t total = 0, worst = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(index.find(keys[i]), &v[i]);
    total += index.probe_length(keys[i]);
    worst = std::max(worst, index.probe_length(keys[i]));
  }
  EXPECT_LE(double(total) / double(keys.size()), 2.5);
  EXPECT_LE(worst, 64u);
}

// A 200 x 200 wavefront of doubles (320 KB) wherever the allocator puts it:
// across 1 MiB and 2 MiB boundaries, at every 4 KiB offset of a 2 MiB window.
TEST(AddressIndex, ArraysAcrossLargeBoundaries) {
  const std::uintptr_t region = 0x7f3a00000000u;
  for (std::uintptr_t offset = 0; offset < 2 * kMiB; offset += 4096) {
    const auto keys = strided(region + offset - 160 * 1024, 40000, 8);
    const Stats s = measure(keys);
    ASSERT_LE(s.mean_hit, 2.5) << "offset " << offset;
    ASSERT_LE(s.max_hit, 64u) << "offset " << offset;
  }
}

TEST(AddressIndex, PageAndPowerOfTwoStrides) {
  for (unsigned shift = 3; shift <= 24; ++shift)
    expect_bounded(strided(0x7f0000000000u, 20000, std::uintptr_t(1) << shift),
                   "stride 2^" + std::to_string(shift));
}

TEST(AddressIndex, RandomKeys) {
  std::mt19937_64 rng(12345);
  std::vector<std::uintptr_t> keys(100000);
  for (auto& k : keys) k = (rng() & 0x00007ffffffffff0ull) | 0x10;
  expect_bounded(keys, "random");
}

TEST(AddressIndex, MillionsOfKeys) {
  expect_bounded(strided(0x7f1234560000u, 2000000, 8), "2M contiguous doubles");
}

TEST(AddressIndex, ReplaceAndClear) {
  AddressIndex<int> index;
  int a = 1, b = 2;
  EXPECT_EQ(index.find(0x1000), nullptr);
  index.insert(0x1000, &a);
  index.insert(0x1000, &b);
  EXPECT_EQ(index.find(0x1000), &b);
  EXPECT_EQ(index.size(), 1u);
  index.clear();
  EXPECT_EQ(index.find(0x1000), nullptr);
  EXPECT_EQ(index.size(), 0u);
}

}  // namespace
}  // namespace joule::engine
