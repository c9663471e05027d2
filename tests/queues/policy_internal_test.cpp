// Ready-queue policies on their own: the order each one hands tasks out.
#include <gtest/gtest.h>

#include <cstdint>
#include <new>
#include <vector>

#include "policy_registry.hpp"
#include "ready_queues.hpp"
#include "task_pool.hpp"

namespace joule::queues {
namespace {

struct Tasks {
  std::vector<Task*> all;
  Task* make(int priority = 0, std::uint64_t affinity = JOULE_NO_AFFINITY) {
    Task* t = engine::TaskPool::make_task(nullptr, 0, 16);
    t->priority = priority;
    t->affinity = affinity;
    all.push_back(t);
    return t;
  }
  ~Tasks() {
    for (Task* t : all) engine::release(t);
  }
};

TEST(Policies, RegistryKnowsEveryPolicyAndRejectsOthers) {
  for (const auto& name : policy_names()) EXPECT_NE(make_policy(name, 2), nullptr) << name;
  EXPECT_THROW(make_policy("nope", 2), std::invalid_argument);
}

TEST(Policies, FifoIsOldestFirst) {
  Tasks ts;
  auto q = make_policy("fifo", 1);
  Task* a = ts.make();
  Task* b = ts.make();
  q->push(a, 0);
  q->push(b, 0);
  EXPECT_EQ(q->pop(0), a);
  EXPECT_EQ(q->pop(0), b);
  EXPECT_EQ(q->pop(0), nullptr);
}

TEST(Policies, LifoIsNewestFirst) {
  Tasks ts;
  auto q = make_policy("lifo", 1);
  Task* a = ts.make();
  Task* b = ts.make();
  q->push(a, 0);
  q->push(b, 0);
  EXPECT_EQ(q->pop(0), b);
  EXPECT_EQ(q->pop(0), a);
}

TEST(Policies, PriorityHighestFirstFifoWithinLevel) {
  Tasks ts;
  auto q = make_policy("priority", 1);
  Task* low = ts.make(-1);
  Task* mid1 = ts.make(0);
  Task* high = ts.make(5);
  Task* mid2 = ts.make(0);
  for (Task* t : {low, mid1, high, mid2}) q->push(t, 0);
  EXPECT_EQ(q->pop(0), high);
  EXPECT_EQ(q->pop(0), mid1);
  EXPECT_EQ(q->pop(0), mid2);
  EXPECT_EQ(q->pop(0), low);
  EXPECT_EQ(q->pop(0), nullptr);
}

TEST(Policies, WorkStealingOwnDequeLifoStealFifo) {
  Tasks ts;
  auto q = make_policy("work-stealing", 2);
  EXPECT_TRUE(q->sharded());
  Task* a = ts.make();
  Task* b = ts.make();
  Task* c = ts.make();
  q->push(a, 0);
  q->push(b, 0);
  q->push(c, 0);
  EXPECT_EQ(q->pop(0), c);    // own: newest
  EXPECT_EQ(q->steal(1), a);  // thief: oldest
  EXPECT_EQ(q->steal(1), b);
  EXPECT_EQ(q->pop(0), nullptr);
}

TEST(Policies, WorkStealingHonoursAffinityKeys) {
  Tasks ts;
  auto q = make_policy("work-stealing", 4);
  EXPECT_EQ(q->home_shard(ts.make(0, 6), 0, 4, 2), 2);  // the key's worker
  EXPECT_EQ(q->home_shard(ts.make(), 3, 4, -1), 3);     // no key: the pusher's own
}

TEST(Policies, LocalityRunsOwnTasksInCreationOrderThievesTakeTheNewest) {
  Tasks ts;
  auto q = make_policy("locality", 2);
  EXPECT_TRUE(q->sharded());
  EXPECT_TRUE(q->follows_data());
  Task* a = ts.make();
  Task* b = ts.make();
  Task* c = ts.make();
  a->id = 10;
  b->id = 20;
  c->id = 30;
  for (Task* t : {c, a, b}) q->push(t, 0);  // ready out of creation order
  EXPECT_EQ(q->pop(0), a);                  // own: oldest id first
  EXPECT_EQ(q->steal(1), c);                // thief: newest
  EXPECT_EQ(q->pop(0), b);
  EXPECT_EQ(q->pop(0), nullptr);
}

TEST(Policies, LocalityQueuesATaskWhereItsDataWasLastWritten) {
  Tasks ts;
  auto q = make_policy("locality", 4);
  Task* t = ts.make(0, 6);
  EXPECT_EQ(q->home_shard(t, 0, 4, 2), 2);  // no history: the affinity key's worker
  t->data_home.store(3);
  EXPECT_EQ(q->home_shard(t, 0, 4, 2), 3);  // the worker that wrote its data
  t->data_home.store(9);
  EXPECT_EQ(q->home_shard(t, 1, 4, 2), 2);  // not a worker of this process
  EXPECT_EQ(q->home_shard(ts.make(), 1, 4, -1), 1);
}

ReadyQueues sharded(int shards, int workers) {
  return ReadyQueues([] { return make_policy("work-stealing", 4); }, shards, workers);
}

TEST(ReadyQueues, OwnerPopsNewestThiefTakesHalfOfTheOldestIntoItsOwnDeque) {
  Tasks ts;
  auto s = sharded(3, 3);
  std::vector<Task*> pushed;
  for (int i = 0; i < 8; ++i) pushed.push_back(ts.make());
  s.push_many(pushed.data(), 8, 0);
  EXPECT_EQ(s.size(), 8);
  EXPECT_EQ(s.pop(0), pushed[7]);
  bool stole = false;
  EXPECT_EQ(s.pop(1, &stole), pushed[0]);  // half of the 7 left: the oldest runs
  EXPECT_TRUE(stole);
  // The other two are on the thief's own deque, not private: 6 still queued,
  // and a third worker can take them.
  EXPECT_EQ(s.size(), 6);
  EXPECT_EQ(s.size_of(1), 2);
  EXPECT_EQ(s.pop(1, &stole), pushed[1]);  // the thief goes on in the victim's order
  EXPECT_FALSE(stole);
  EXPECT_EQ(s.steal_stats(1).steals, 1u);
  EXPECT_EQ(s.steal_stats(1).tasks, 3u);
  Task* left_on_thief = pushed[2];
  // Worker 2 finds work on 0 and on 1; either way it is the oldest there.
  Task* got = s.pop(2);
  EXPECT_TRUE(got == left_on_thief || got == pushed[3]);
}

// A batch larger than the ring (it grows several times over in one push)
// keeps its order among single pushes: newest first for the owner, oldest
// first for a thief.
TEST(ReadyQueues, OwnBatchesGrowTheDequeAndKeepTheirOrder) {
  Tasks ts;
  auto s = sharded(2, 2);
  std::vector<Task*> pushed;
  for (int i = 0; i < 1200; ++i) pushed.push_back(ts.make());
  s.push(pushed[0], 0);
  s.push_many(pushed.data() + 1, 1100, 0);
  for (int i = 1101; i < 1200; ++i) s.push(pushed[std::size_t(i)], 0);
  EXPECT_EQ(s.size_of(0), 1200);
  bool stole = false;
  EXPECT_EQ(s.pop(1, &stole), pushed[0]);
  EXPECT_TRUE(stole);
  // The thief's share after the one it runs: the next oldest, in order.
  const auto share = s.steal_stats(1).tasks - 1;
  for (std::size_t i = 1; i <= share; ++i) EXPECT_EQ(s.pop(1), pushed[i]) << i;
  for (std::size_t i = 1200; i-- > share + 1;) EXPECT_EQ(s.pop(0), pushed[i]) << i;
  EXPECT_EQ(s.pop(0), nullptr);
  EXPECT_EQ(s.size(), 0);
}

TEST(ReadyQueues, AffinityKeysPickTheShardAndAnyoneCanSteal) {
  Tasks ts;
  auto s = sharded(4, 2);
  Task* keyed = ts.make(0, 3);  // 3 % 2 workers = shard 1
  Task* plain = ts.make();
  Task* batch[2] = {keyed, plain};
  s.push_many(batch, 2, 0);
  EXPECT_EQ(s.pop(1), keyed);  // its own shard first
  EXPECT_EQ(s.pop(3), plain);  // a guest worker steals from shard 0
  EXPECT_EQ(s.pop(0), nullptr);
  EXPECT_EQ(s.size(), 0);
}

TEST(ReadyQueues, ExternalThreadsSpreadAndSteal) {
  Tasks ts;
  auto s = sharded(2, 2);
  for (int i = 0; i < 4; ++i) s.push(ts.make(), -1);
  int got = 0;
  while (s.pop(-1)) ++got;
  EXPECT_EQ(got, 4);
}

TEST(ReadyQueues, PlainPolicyIsOneShard) {
  Tasks ts;
  ReadyQueues s([] { return make_policy("fifo", 2); }, 4, 2);
  Task* a = ts.make();
  Task* b = ts.make();
  s.push(a, 0);
  s.push(b, 1);
  EXPECT_EQ(s.pop(1), a);
  EXPECT_EQ(s.pop(0), b);
}

// A ShardMemory that remembers its blocks: which node each was for and
// the bytes asked, and which were released.
struct Blocks {
  struct Block {
    void* p;
    std::size_t bytes;
    int node;
    bool released = false;
  };
  std::vector<Block> all;
  ShardMemory memory() {
    return {[this](std::size_t bytes, int node) {
              void* p = ::operator new(bytes, std::align_val_t(64));
              all.push_back({p, bytes, node});
              return p;
            },
            [this](void* p) {
              for (Block& b : all)
                if (b.p == p) b.released = true;
              ::operator delete(p, std::align_val_t(64));
            }};
  }
  // The node of the block holding p (-2: none does).
  int node_of(const void* p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (const Block& b : all) {
      const auto begin = reinterpret_cast<std::uintptr_t>(b.p);
      if (a >= begin && a + ReadyQueues::shard_bytes() <= begin + b.bytes) return b.node;
    }
    return -2;
  }
};

TEST(ReadyQueues, ShardsGoInTheBlockOfTheirWorkersNode) {
  Blocks blocks;
  {
    // Workers 0 and 2 on node 1, 1 and 3 on node 0; shards 4 and 5 are
    // guests: the block of no node.
    ReadyQueues s([] { return make_policy("work-stealing", 6); }, 6, 4,
                  ShardPlacement{blocks.memory(), {1, 0, 1, 0}});
    ASSERT_EQ(blocks.all.size(), 3u);
    const std::vector<int> expected = {1, 0, 1, 0, -1, -1};
    for (int w = 0; w < 6; ++w) {
      EXPECT_EQ(blocks.node_of(s.shard_address(w)), expected[std::size_t(w)]) << "shard " << w;
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(s.shard_address(w)) % 64, 0u);
    }
    for (const auto& b : blocks.all) EXPECT_EQ(b.bytes, 2 * ReadyQueues::shard_bytes());
    // The shards work where they are.
    Tasks ts;
    Task* t = ts.make();
    s.push(t, 3);
    bool stole = false;
    EXPECT_EQ(s.pop(4, &stole), t);
    EXPECT_TRUE(stole);
    for (const auto& b : blocks.all) EXPECT_FALSE(b.released);
  }
  for (const auto& b : blocks.all) EXPECT_TRUE(b.released);
}

TEST(ReadyQueues, PlainPolicysOneShardHasNoNode) {
  Blocks blocks;
  ReadyQueues s([] { return make_policy("fifo", 2); }, 4, 2,
                ShardPlacement{blocks.memory(), {1, 0}});
  ASSERT_EQ(blocks.all.size(), 1u);
  EXPECT_EQ(blocks.all[0].node, -1);
  EXPECT_EQ(s.shard_address(1), s.shard_address(0));
  EXPECT_EQ(blocks.node_of(s.shard_address(0)), -1);
}

// Without a ShardMemory (as in the tests above): plain allocation, each
// shard on its own cache lines.
TEST(ReadyQueues, DefaultAllocationKeepsShardsApartAndAligned) {
  auto s = sharded(5, 5);
  for (int w = 0; w < 5; ++w) {
    const auto a = reinterpret_cast<std::uintptr_t>(s.shard_address(w));
    EXPECT_EQ(a % 64, 0u) << w;
    for (int v = 0; v < w; ++v) {
      const auto b = reinterpret_cast<std::uintptr_t>(s.shard_address(v));
      EXPECT_GE(a > b ? a - b : b - a, ReadyQueues::shard_bytes()) << w << " " << v;
    }
  }
  EXPECT_EQ(s.shard_address(5), nullptr);
}

}  // namespace
}  // namespace joule::queues
