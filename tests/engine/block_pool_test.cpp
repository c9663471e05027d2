// BlockPool and its allocator: distinct, aligned blocks however many chunks
// a pool grows to, reuse of freed blocks, and a node-based container on it.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "block_pool.hpp"

namespace joule::engine {
namespace {

struct Node {
  std::uint64_t words[25];  // 200 bytes: a size that is not a power of two
};

TEST(BlockPool, BlocksAreDistinctAlignedAndWritableAcrossManyChunks) {
  BlockPool pool;
  ASSERT_TRUE(pool.for_blocks(sizeof(Node)));
  // Far past the point where the chunk size stops doubling (and where a
  // shift by the chunk count would overflow).
  constexpr std::size_t kBlocks = 200000;
  std::vector<Node*> blocks;
  for (std::size_t i = 0; i < kBlocks; ++i) {
    auto* n = static_cast<Node*>(pool.allocate());
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(n) % alignof(std::max_align_t), 0u);
    for (auto& w : n->words) w = i;
    blocks.push_back(n);
  }
  std::set<Node*> distinct(blocks.begin(), blocks.end());
  EXPECT_EQ(distinct.size(), kBlocks);
  for (std::size_t i = 0; i < kBlocks; ++i)
    for (auto w : blocks[i]->words) ASSERT_EQ(w, i) << "block " << i << " was overwritten";
}

TEST(BlockPool, FreedBlocksComeBackFirst) {
  BlockPool pool;
  ASSERT_TRUE(pool.for_blocks(sizeof(Node)));
  void* a = pool.allocate();
  void* b = pool.allocate();
  pool.deallocate(a);
  pool.deallocate(b);
  EXPECT_EQ(pool.allocate(), b);
  EXPECT_EQ(pool.allocate(), a);
  EXPECT_FALSE(pool.for_blocks(sizeof(Node) + 64));  // another size is not a block
}

TEST(BlockPool, MapOnTheAllocatorKeepsItsContents) {
  BlockPool pool;
  using Alloc = BlockAllocator<std::pair<const int, Node>>;
  std::map<int, Node, std::less<int>, Alloc> m{Alloc(&pool)};
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 50000; ++i) m[i].words[0] = std::uint64_t(i + round);
    for (int i = 0; i < 50000; i += 2) m.erase(i);
    for (int i = 1; i < 50000; i += 2) ASSERT_EQ(m.at(i).words[0], std::uint64_t(i + round));
    m.clear();
  }
}

}  // namespace
}  // namespace joule::engine
