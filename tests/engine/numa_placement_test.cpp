// NUMA placement: every worker's state (its object, pool, wait slot, ready
// queue shard header) on its CPU's node (the node meant, on a synthetic
// 2-package x 2-node machine; the kernel's answer on this one), the
// placement API (interleaved, on a node, first touch by a key's
// worker, errors), and tasks queued on the node of their data. 1 to 64
// workers: most of them oversubscribe this machine.
#include <gtest/gtest.h>

#include <numaif.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "joule/joule.hpp"
#include "joule/memory.h"
#include "joule/memory.hpp"
#include "numa_memory.hpp"
#include "runtime.hpp"

namespace joule::engine {
namespace {

// 2 packages of 2 NUMA nodes (4 nodes), 32 PUs.
constexpr const char* kMachine = "pack:2 numa:2 core:8 pu:2";

// The node the kernel says backs the (touched) page at p, through the
// policy call rather than NumaMemory's move_pages: an independent answer.
int mempolicy_node(const void* p) {
  int node = -1;
  if (get_mempolicy(&node, nullptr, 0, const_cast<void*>(p), MPOL_F_NODE | MPOL_F_ADDR) != 0)
    return -1;
  return node;
}

// Workers sleep once they started (and made their first slab).
void wait_until_asleep(Runtime& rt, int sleepers) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (rt.idle().sleepers() < sleepers && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_GE(rt.idle().sleepers(), sleepers);
}

class WorkerState : public ::testing::TestWithParam<int> {};

TEST_P(WorkerState, LivesOnItsCpusNodeOnASyntheticMachine) {
  const int n = GetParam();
  joule::runtime guard({{"JOULE_WORKER_TOPOLOGY", kMachine},
                        {"JOULE_WORKERS", std::to_string(n)},
                        {"JOULE_SPIN_US", "0"},
                        {"JOULE_LENDING", "off"}});
  Runtime& rt = Runtime::get();
  ASSERT_TRUE(rt.topology().synthetic());
  ASSERT_EQ(rt.numa().nodes().nodes(), 4);  // two packages of two nodes
  wait_until_asleep(rt, n - 1);
  NumaMemory& mem = NumaMemory::instance();
  std::vector<int> per_node(4, 0);
  for (int i = 0; i < n; ++i) {
    Worker* w = rt.workers().worker(i);
    const int node = rt.topology().numa_node_of(w->cpu());
    EXPECT_EQ(w->node(), node) << "worker " << i;
    EXPECT_EQ(rt.numa().nodes().node_of(i), node);
    MemoryRecord r;
    ASSERT_TRUE(mem.find(w, r)) << "worker " << i << " is not in NumaMemory's records";
    EXPECT_EQ(r.node, node) << "worker " << i;
    EXPECT_EQ(r.use, MemoryUse::worker_state);
    // Only node 0 exists here: it alone may be bound; the page is there.
    EXPECT_EQ(r.bound, node == 0 && mem.machine_has(0));
    EXPECT_EQ(mempolicy_node(w), 0);
    EXPECT_EQ(NumaMemory::kernel_node_of(w), 0);
    // Its wait slot (written on every sleep) is in its node's block.
    MemoryRecord slot;
    ASSERT_TRUE(mem.find(&rt.idle().worker_slot(i), slot)) << "worker " << i;
    EXPECT_EQ(slot.node, node) << "worker " << i;
    EXPECT_EQ(slot.use, MemoryUse::worker_state);
    // And its ready-queue shard header (lock, counts, steal statistics).
    MemoryRecord shard;
    ASSERT_TRUE(mem.find(rt.scheduler().shard_address(i), shard)) << "worker " << i;
    EXPECT_EQ(shard.node, node) << "worker " << i;
    EXPECT_EQ(shard.use, MemoryUse::worker_state);
    EXPECT_EQ(shard.placement, Placement::node);
    ++per_node[std::size_t(node)];
  }
  // Each worker: its own pages plus the first slab its thread made.
  const auto pages = [](std::size_t b) {
    const std::size_t p = NumaMemory::page_size();
    return (b + p - 1) / p * p;
  };
#ifdef JOULE_POOL_PASSTHROUGH
  const std::uint64_t slab = 0;  // sanitizer builds: every task from malloc
#else
  const std::uint64_t slab = pages(TaskPool::kBlockBytes * TaskPool::kBlocksPerSlab);
#endif
  const std::uint64_t each = pages(sizeof(Worker)) + slab;
  for (int node = 0; node < 4; ++node) {
    const std::size_t k = std::size_t(per_node[std::size_t(node)]);
    // Wait slots and shard headers: one block of each per node.
    const std::uint64_t slots = k ? pages(k * sizeof(core::WaitSlot)) : 0;
    const std::uint64_t shards = k ? pages(k * queues::ReadyQueues::shard_bytes()) : 0;
    EXPECT_EQ(mem.bytes_on(node, MemoryUse::worker_state), each * k + slots + shards)
        << "node " << node;
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, WorkerState, ::testing::Values(1, 2, 4, 32, 64));

// A worker moves its thread_local context to its node (memory it did not
// allocate): move_to_node on a page this thread touched first, to the one
// node that exists here; a node this machine lacks is refused.
TEST(NumaMove, MovesPagesToANodeThatExistsOnly) {
  NumaMemory& mem = NumaMemory::instance();
  const std::size_t page = NumaMemory::page_size();
  void* p = std::aligned_alloc(page, 2 * page);
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, 2 * page);
  const bool here = mem.machine_has(0) && NumaMemory::kernel_node_of(p) >= 0;
  EXPECT_EQ(mem.move_to_node(static_cast<char*>(p) + 100, page, 0), here);
  if (here) {
    EXPECT_EQ(NumaMemory::kernel_node_of(p), 0);
    EXPECT_EQ(NumaMemory::kernel_node_of(static_cast<char*>(p) + page), 0);
  }
  EXPECT_FALSE(mem.move_to_node(p, page, mem.machine_nodes() + 3));
  EXPECT_FALSE(mem.move_to_node(p, 0, 0));
  std::free(p);
}

TEST(WorkerStateHere, IsBoundToThisMachinesNodeAndTouched) {
  joule::runtime guard({{"JOULE_WORKERS", "4"}, {"JOULE_SPIN_US", "0"}, {"JOULE_LENDING", "off"}});
  Runtime& rt = Runtime::get();
  wait_until_asleep(rt, 3);
  for (int i = 0; i < 4; ++i) {
    Worker* w = rt.workers().worker(i);
    MemoryRecord r;
    ASSERT_TRUE(NumaMemory::instance().find(w, r));
    EXPECT_EQ(r.node, rt.topology().numa_node_of(w->cpu()));
    EXPECT_TRUE(r.bound || !NumaMemory::instance().machine_has(r.node));
    int mode = -1;
    ASSERT_EQ(get_mempolicy(&mode, nullptr, 0, w, MPOL_F_ADDR), 0);
    if (r.bound) {
      EXPECT_EQ(mode, MPOL_PREFERRED);
    }
    EXPECT_EQ(mempolicy_node(w), r.node);
  }
}

TEST(PlacementApi, InterleavedAndOnANodeAgreeWithTheKernel) {
  joule::runtime guard({{"JOULE_WORKERS", "4"}, {"JOULE_LENDING", "off"}});
  joule_placement_t where{JOULE_PLACE_INTERLEAVED, 0, 0, 0, nullptr, nullptr};
  auto* a = static_cast<char*>(joule_alloc(1 << 20, &where));
  ASSERT_NE(a, nullptr) << joule_last_error();
  EXPECT_EQ(joule_node_of_address(a), 0);
  std::memset(a, 1, 1 << 20);
  for (int off = 0; off < (1 << 20); off += 1 << 16)
    EXPECT_EQ(joule_node_of_address(a + off), NumaMemory::kernel_node_of(a + off));
  EXPECT_EQ(joule_free(a), JOULE_OK);

  where = {JOULE_PLACE_NODE, 0, 0, 0, nullptr, nullptr};
  auto* b = static_cast<char*>(joule_alloc(3 * 4096 + 5, &where));
  ASSERT_NE(b, nullptr) << joule_last_error();
  b[0] = 1;
  EXPECT_EQ(joule_node_of_address(b), 0);
  EXPECT_EQ(NumaMemory::kernel_node_of(b), 0);
  EXPECT_EQ(mempolicy_node(b), 0);
  EXPECT_EQ(joule_free(b + 1), JOULE_ERR_INVALID);  // not the start
  EXPECT_EQ(joule_free(b), JOULE_OK);
}

TEST(PlacementApi, ABadNodeOrKindIsAClearError) {
  joule::runtime guard({{"JOULE_WORKER_TOPOLOGY", "pack:1 numa:2 core:2 pu:1"},
                        {"JOULE_WORKERS", "2"},
                        {"JOULE_LENDING", "off"}});
  EXPECT_EQ(joule_numa_node_count(), 2);
  joule_placement_t where{JOULE_PLACE_NODE, 5, 0, 0, nullptr, nullptr};
  EXPECT_EQ(joule_alloc(4096, &where), nullptr);
  const std::string msg = joule_last_error();
  EXPECT_NE(msg.find("node 5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0..1"), std::string::npos) << msg;
  where.node = -1;
  EXPECT_EQ(joule_alloc(4096, &where), nullptr);
  where.kind = 9;
  EXPECT_EQ(joule_alloc(4096, &where), nullptr);
  EXPECT_NE(std::string(joule_last_error()).find("JOULE_PLACE_BY_KEY"), std::string::npos);
  EXPECT_EQ(joule_alloc(0, nullptr), nullptr);
  // Node 1 does not exist here: the allocation is made and only recorded.
  where = {JOULE_PLACE_NODE, 1, 0, 0, nullptr, nullptr};
  void* p = joule_alloc(8192, &where);
  ASSERT_NE(p, nullptr) << joule_last_error();
  EXPECT_EQ(joule_node_of_address(p), 1);
  EXPECT_EQ(joule_free(p), JOULE_OK);
}

// Sizes whose rounding up to pages (or chunk count) would wrap size_t are
// refused as too large, not reported as out of memory; nothing is mapped.
TEST(PlacementApi, SizesNearSizeMaxAreInvalid) {
  joule::runtime guard({{"JOULE_WORKERS", "2"}, {"JOULE_LENDING", "off"}});
  joule_placement_t by_key{JOULE_PLACE_BY_KEY, 0, 0, 4096, nullptr, nullptr};
  for (std::size_t bytes : {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 4095, SIZE_MAX / 2 + 1}) {
    for (const joule_placement_t* where : {static_cast<joule_placement_t*>(nullptr), &by_key}) {
      EXPECT_EQ(joule_alloc(bytes, where), nullptr) << bytes;
      const std::string msg = joule_last_error();
      EXPECT_NE(msg.find("larger than any object"), std::string::npos) << bytes << ": " << msg;
    }
  }
  void* p = joule_alloc(std::size_t(1) << 20, &by_key);  // normal sizes still work
  ASSERT_NE(p, nullptr) << joule_last_error();
  EXPECT_EQ(joule_free(p), JOULE_OK);
}

// Who touched each chunk: the init callback runs on the chunk's key's worker.
struct Touched {
  std::vector<std::atomic<int>> worker;
  explicit Touched(std::size_t n) : worker(n) {
    for (auto& w : worker) w = -2;
  }
};

void record_toucher(void* chunk, std::size_t bytes, std::uint64_t key, void* arg) {
  std::memset(chunk, 7, bytes);
  static_cast<Touched*>(arg)->worker[std::size_t(key - 100)] = joule_worker_id();
}

class KeyTouch : public ::testing::TestWithParam<int> {};

TEST_P(KeyTouch, EachChunkIsTouchedByItsKeysWorker) {
  const int n = GetParam();
  joule::runtime guard({{"JOULE_WORKER_TOPOLOGY", kMachine},
                        {"JOULE_WORKERS", std::to_string(n)},
                        {"JOULE_LENDING", "off"}});
  Runtime& rt = Runtime::get();
  constexpr std::size_t kChunks = 96;
  constexpr std::size_t kChunk = 3 * 4096;
  Touched touched(kChunks);
  joule_placement_t where{JOULE_PLACE_BY_KEY, 0, 100, kChunk, record_toucher, &touched};
  auto* p = static_cast<char*>(joule_alloc(kChunks * kChunk, &where));
  ASSERT_NE(p, nullptr) << joule_last_error();
  int elsewhere = 0;
  for (std::size_t i = 0; i < kChunks; ++i) {
    const int key_worker = rt.numa().worker_of_key(100 + i);
    const int ran = touched.worker[i];
    // Worker 0 (this thread) touches its own keys; a worker of its node
    // would stand in only for another calling thread.
    EXPECT_EQ(ran, key_worker) << "chunk " << i;
    elsewhere += ran != key_worker;
    EXPECT_EQ(joule_node_of_address(p + i * kChunk), joule_node_of_key(100 + i)) << "chunk " << i;
    EXPECT_EQ(p[i * kChunk + kChunk - 1], 7);
  }
  EXPECT_EQ(elsewhere, 0);
  EXPECT_EQ(joule_free(p), JOULE_OK);
}

INSTANTIATE_TEST_SUITE_P(Workers, KeyTouch, ::testing::Values(1, 2, 4, 32, 64));

TEST(PlacementApi, ZeroedByKeyWhenNoInitIsGiven) {
  joule::runtime guard({{"JOULE_WORKERS", "4"}, {"JOULE_LENDING", "off"}});
  joule_placement_t where{JOULE_PLACE_BY_KEY, 0, 0, 1 << 16, nullptr, nullptr};
  auto* p = static_cast<unsigned char*>(joule_alloc(1 << 20, &where));
  ASSERT_NE(p, nullptr) << joule_last_error();
  for (int off = 0; off < (1 << 20); off += 4096) {
    EXPECT_EQ(p[off], 0);
    EXPECT_EQ(joule_node_of_address(p + off), NumaMemory::kernel_node_of(p + off));
  }
  EXPECT_EQ(joule_free(p), JOULE_OK);
}

class DataNode : public ::testing::TestWithParam<int> {};

// Nothing else runs: tasks whose data sits on node 1 run on node-1 workers.
TEST_P(DataNode, TasksRunOnTheNodeOfTheirData) {
  const int n = GetParam();
  // Two nodes, and as many CPUs on each as workers take first.
  const char* machine = n == 4 ? "pack:2 numa:1 core:2 pu:1" : "pack:2 numa:1 core:8 pu:2";
  // Here 32-64 threads share 2 CPUs: a woken worker may wait milliseconds
  // for one, so thieves wait longer before they cross to the other node.
  joule::runtime guard({{"JOULE_WORKER_TOPOLOGY", machine},
                        {"JOULE_WORKERS", std::to_string(n)},
                        {"JOULE_SPIN_US", "0"},
                        {"JOULE_NUMA_STEAL_DELAY_US", "200000"},
                        {"JOULE_LENDING", "off"}});
  Runtime& rt = Runtime::get();
  ASSERT_TRUE(rt.numa().nodes().active());
  constexpr int kBlocks = 256;
  constexpr std::size_t kBlock = 1 << 16;
  joule_placement_t where{JOULE_PLACE_NODE, 1, 0, 0, nullptr, nullptr};
  auto* data = static_cast<char*>(joule_alloc(kBlocks * kBlock, &where));
  ASSERT_NE(data, nullptr) << joule_last_error();
  std::atomic<int> on_node1{0};
  for (int round = 0; round < 4; ++round) {
    for (int b = 0; b < kBlocks; ++b) {
      char* block = data + std::size_t(b) * kBlock;
      joule::spawn({joule::inout(*block)}, [&rt, &on_node1, block] {
        block[1] = 1;
        on_node1 += rt.numa().nodes().node_of(joule::worker_id()) == 1;
      });
    }
    joule::taskwait();
  }
  const int total = 4 * kBlocks;
  std::printf("%d workers: %d of %d tasks ran on node 1\n", n, on_node1.load(), total);
  EXPECT_GE(on_node1.load(), total * 9 / 10) << on_node1.load() << " of " << total;
  EXPECT_EQ(rt.numa().nodes().placed(1), std::uint64_t(total));
  EXPECT_EQ(joule_free(data), JOULE_OK);
}

INSTANTIATE_TEST_SUITE_P(Workers, DataNode, ::testing::Values(4, 32, 64));

}  // namespace
}  // namespace joule::engine

namespace joule::engine {
namespace {

// A preference, not a binding: with no wait before crossing nodes, node-0
// workers may run them too, and every task runs.
TEST(DataNodeSoft, WithoutTheStealDelayEveryTaskStillRuns) {
  joule::runtime guard({{"JOULE_WORKER_TOPOLOGY", "pack:2 numa:1 core:2 pu:1"},
                        {"JOULE_WORKERS", "4"},
                        {"JOULE_NUMA_STEAL_DELAY_US", "0"},
                        {"JOULE_LENDING", "off"}});
  joule_placement_t where{JOULE_PLACE_NODE, 1, 0, 0, nullptr, nullptr};
  auto* data = static_cast<int*>(joule_alloc(1 << 20, &where));
  ASSERT_NE(data, nullptr) << joule_last_error();
  std::atomic<int> ran{0};
  for (int i = 0; i < 512; ++i) joule::spawn({joule::inout(data[i * 256])}, [&ran] { ++ran; });
  joule::taskwait();
  EXPECT_EQ(ran.load(), 512);
  EXPECT_EQ(joule_free(data), JOULE_OK);
}

TEST(NumaReport, SaysWhereMemoryAndWorkWent) {
  void* data = nullptr;
  testing::internal::CaptureStderr();
  {
    joule::runtime guard({{"JOULE_WORKER_TOPOLOGY", "pack:2 numa:1 core:2 pu:1"},
                          {"JOULE_WORKERS", "4"},
                          {"JOULE_REPORT", "1"},
                          {"JOULE_LENDING", "off"}});
    joule_placement_t where{JOULE_PLACE_NODE, 1, 0, 0, nullptr, nullptr};
    data = joule_alloc(1 << 20, &where);
    ASSERT_NE(data, nullptr) << joule_last_error();
    auto* x = static_cast<char*>(data);
    for (int i = 0; i < 64; ++i) joule::spawn({joule::inout(x[i * 4096])}, [] {});
    joule::taskwait();
  }
  const std::string report = testing::internal::GetCapturedStderr();
  EXPECT_EQ(joule_free(data), JOULE_OK);
  EXPECT_NE(report.find("numa: 2 node(s) (synthetic), data-node preference on"), std::string::npos)
      << report;
  EXPECT_NE(report.find("node 1: workers 2,"), std::string::npos) << report;
  EXPECT_NE(report.find("queued for their data 64, program data 1.00 MiB"), std::string::npos)
      << report;
  EXPECT_NE(report.find("node 0: workers 2,"), std::string::npos) << report;
}

}  // namespace
}  // namespace joule::engine

namespace joule::engine {
namespace {

TEST(PlacementCxx, ArraysAndErrors) {
  joule::runtime guard({{"JOULE_WORKERS", "2"}, {"JOULE_LENDING", "off"}});
  joule::numa_array<double> a(1000, joule::placement::on_node(0));
  a[999] = 1.5;
  EXPECT_EQ(a.size(), 1000u);
  EXPECT_EQ(joule::node_of_address(a.data()), 0);
  EXPECT_EQ(a[0], 0.0);  // zero-filled
  EXPECT_EQ(joule::numa_node_count(), 1);
  EXPECT_EQ(joule::node_of_key(12345), 0);
  try {
    joule::numa_alloc(10, joule::placement::on_node(7));
    ADD_FAILURE() << "node 7 was accepted";
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_INVALID);
    EXPECT_NE(std::string(e.what()).find("node 7"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace joule::engine
