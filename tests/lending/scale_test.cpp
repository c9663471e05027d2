// Lending at node scale: the table's idle summary stays exact under
// concurrent lends, reclaims, borrows and returns (2 to 64 threads on a
// 128-CPU table, more threads than this machine's CPUs); borrowing takes the
// nearest idle CPUs first on a synthetic hwloc topology; a table of the old
// layout (version 1, no summary) is refused with a message naming both
// versions.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "cpu_table.hpp"
#include "lending_session.hpp"
#include "lending_support.hpp"
#include "runtime.hpp"
#include "topology.hpp"

namespace {

using namespace joule::lending;
using namespace lending_test;

// A shared table with `ncpus` CPUs whatever this machine has: the header's
// count is what every attach reads.
std::unique_ptr<CpuTable> table_of(const std::string& name, int ncpus) {
  { CpuTable::open_shared(name)->segment()->header.ncpus = std::uint32_t(ncpus); }
  return CpuTable::open_shared(name);
}

void expect_summary_matches(const CpuTable& t) {
  int idle = 0;
  for (int c = 0; c < t.ncpus(); ++c) {
    const bool is_idle = t.load(c).state == CpuState::Idle;
    const bool bit = (t.idle_word(c / 64) >> (c % 64)) & 1;
    EXPECT_EQ(bit, is_idle) << "cpu " << c;
    idle += is_idle;
  }
  EXPECT_EQ(t.idle_hint(), idle);
  EXPECT_EQ(t.any_idle(), idle > 0);
}

class IdleSummary : public ::testing::TestWithParam<int> {};

TEST_P(IdleSummary, StaysExactUnderConcurrentLendReclaimBorrowReturn) {
  constexpr int kCpus = 128;
  const int threads = GetParam();
  ShmGuard g(unique_shm("summary"));
  auto t = table_of(g.name, kCpus);
  ASSERT_EQ(t->ncpus(), kCpus);
  // Thread i acts as process pid_of(i): it owns CPUs i, i+threads, ... and
  // borrows anybody's. The pids are never reaped: nothing here cleans.
  auto pid_of = [](int i) { return pid_t(4'000'000 + i); };
  for (int c = 0; c < kCpus; ++c)
    ASSERT_EQ(t->apply(c, CpuOp::Own, pid_of(c % threads)).outcome, Outcome::Done);
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      std::uint32_t rng = 2463534242u + std::uint32_t(i) * 7919u;
      for (int k = 0; k < 20000; ++k) {
        rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
        const int c = int(rng % kCpus);
        const CpuOp op = CpuOp(2 + (rng >> 8) % 4);  // Lend, Reclaim, Borrow, Return
        t->apply(c, op, pid_of(i));
      }
    });
  }
  for (auto& th : pool) th.join();
  expect_summary_matches(*t);
  // And after a quiet pass that lends everything owned.
  for (int c = 0; c < kCpus; ++c) {
    t->apply(c, CpuOp::Return, t->load(c).guest);
    t->apply(c, CpuOp::Lend, t->load(c).owner);
  }
  expect_summary_matches(*t);
  EXPECT_EQ(t->idle_hint(), kCpus);
}

INSTANTIATE_TEST_SUITE_P(Threads, IdleSummary, ::testing::Values(2, 4, 16, 32, 64));

TEST(Nearness, LevelsFollowTheSyntheticTopology) {
  joule::engine::Topology topo("pack:2 numa:1 core:4 pu:2");  // 16 PUs, package 0: 0..7
  const auto levels = joule::engine::nearness_levels(topo, {14, 15});
  auto level_of = [&](int cpu) {
    for (std::size_t l = 0; l < levels.size(); ++l)
      for (int c : levels[l])
        if (c == cpu) return int(l);
    return -1;
  };
  for (int c = 8; c < 14; ++c) EXPECT_LT(level_of(c), level_of(0)) << "cpu " << c;
  for (int c = 0; c < 8; ++c) EXPECT_EQ(level_of(c), level_of(0)) << "cpu " << c;
  EXPECT_EQ(level_of(14), -1);  // owned CPUs are not candidates
}

// This process owns CPUs 14 and 15 of a 16-CPU table (package 1 of the
// synthetic machine); another live process (our parent) lends 0..13.
// Borrowing takes package 1 first, though index order (and the old round
// robin) would start at CPU 0 or anywhere.
TEST(Nearness, BorrowerGetsItsOwnPackagesCpusFirst) {
  ShmGuard g(unique_shm("near"));
  table_of(g.name, 16);
  LendingOptions o;
  o.mode = "node";
  o.shm = g.name;
  auto s = Session::join(o, {14, 15});
  CpuTable& t = s->table();
  const pid_t other = ::getppid();
  for (int c = 0; c < 16; ++c) {
    if (c >= 14) continue;
    ASSERT_EQ(t.apply(c, CpuOp::Own, other).outcome, Outcome::Done);
    ASSERT_EQ(t.apply(c, CpuOp::Lend, other).outcome, Outcome::Done);
  }
  joule::engine::Topology topo("pack:2 numa:1 core:4 pu:2");
  s->nearness().set(joule::engine::nearness_levels(topo, {14, 15}));
  std::vector<int> got;
  s->acquire(4, got);
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), 4u);
  for (int c : got) EXPECT_GE(c, 8) << "borrowed cpu " << c << " of package 0 too early";
  got.clear();
  s->acquire(4, got);
  ASSERT_EQ(got.size(), 4u);
  int near = 0;
  for (int c : got) near += c >= 8;
  EXPECT_EQ(near, 2);  // the last two of package 1, then package 0
  s->loans().return_all();
  for (int c = 0; c < 16; ++c)
    if (c < 14) t.apply(c, CpuOp::Disown, other);
}

TEST(OldLayout, VersionOneTableIsRefusedNamingBothVersions) {
  ShmGuard g(unique_shm("v1"));
  { CpuTable::open_shared(g.name)->segment()->header.version = 1; }
  try {
    CpuTable::open_shared(g.name);
    FAIL() << "a version-1 table was accepted";
  } catch (const TableError& e) {
    EXPECT_EQ(e.kind(), TableError::Kind::Version);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("layout version 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("uses version " + std::to_string(kVersion)), std::string::npos) << msg;
    EXPECT_NE(msg.find(g.name), std::string::npos) << msg;
  }
}

}  // namespace
