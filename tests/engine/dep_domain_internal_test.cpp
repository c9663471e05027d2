// DepDomain on its own: which edges each region case produces.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "commutative.hpp"
#include "dep_domain.hpp"
#include "task_pool.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

class DepDomainTest : public ::testing::Test {
 protected:
  ~DepDomainTest() override {
    domain_.clear();
    for (Task* t : tasks_) {
      for (CommutativeToken* tok : t->tokens) tok->unref();
      t->tokens.clear();
      EXPECT_EQ(t->refs.load(), 1) << "the domain leaked a reference";
      release(t);
    }
  }
  Task* task() {
    tasks_.push_back(TaskPool::make_task(nullptr, 0, 16));
    return tasks_.back();
  }
  Task* access(DepKind k, std::uintptr_t lo, std::uintptr_t hi) {
    Task* t = task();
    domain_.add(t, k, lo, hi);
    return t;
  }
  static int preds(Task* t) { return t->pred_edges; }
  static bool follows(Task* succ, Task* pred) {
    return std::any_of(pred->successors.begin(), pred->successors.end(),
                       [&](Task* s) { return untag(s) == succ; });
  }
  // The edge says succ writes what pred wrote (see tag_same_data).
  static bool same_data(Task* succ, Task* pred) {
    return std::find(pred->successors.begin(), pred->successors.end(), tag_same_data(succ)) !=
           pred->successors.end();
  }

  DepDomain domain_;
  std::vector<Task*> tasks_;
};

TEST_F(DepDomainTest, IdenticalRegionsOrderWriterThenReaders) {
  Task* w = access(DepKind::out, 100, 110);
  Task* r1 = access(DepKind::in, 100, 110);
  Task* r2 = access(DepKind::in, 100, 110);
  EXPECT_TRUE(follows(r1, w));
  EXPECT_TRUE(follows(r2, w));
  EXPECT_EQ(preds(r1), 1);
  EXPECT_FALSE(follows(r2, r1));  // readers run together
  Task* w2 = access(DepKind::inout, 100, 110);
  EXPECT_TRUE(follows(w2, r1));
  EXPECT_TRUE(follows(w2, r2));
  EXPECT_EQ(preds(w2), 2);  // the old writer is implied through the readers
}

TEST_F(DepDomainTest, OnlyWriterAfterWriterEdgesCarryTheSameDataTag) {
  Task* w = access(DepKind::out, 0, 64);
  Task* r = access(DepKind::in, 0, 64);
  Task* w2 = access(DepKind::inout, 0, 64);
  Task* w3 = access(DepKind::inout, 0, 64);
  EXPECT_TRUE(follows(r, w));
  EXPECT_FALSE(same_data(r, w));   // read after write: untagged
  EXPECT_FALSE(same_data(w2, r));  // write after read: untagged
  EXPECT_TRUE(same_data(w3, w2));  // write after write: the block stays hot where w2 ran
}

TEST_F(DepDomainTest, WriteAfterWriteChains) {
  Task* a = access(DepKind::inout, 0, 8);
  Task* b = access(DepKind::inout, 0, 8);
  Task* c = access(DepKind::out, 0, 8);
  EXPECT_TRUE(follows(b, a));
  EXPECT_TRUE(follows(c, b));
  EXPECT_EQ(preds(c), 1);
}

TEST_F(DepDomainTest, NestedRegionFollowsEnclosingWriter) {
  Task* whole = access(DepKind::out, 0, 100);
  Task* inner = access(DepKind::in, 10, 20);
  Task* inner_w = access(DepKind::out, 10, 20);
  Task* whole2 = access(DepKind::out, 0, 100);
  EXPECT_TRUE(follows(inner, whole));
  EXPECT_TRUE(follows(inner_w, inner));
  EXPECT_FALSE(follows(inner_w, whole));
  EXPECT_TRUE(follows(whole2, whole));    // bytes 0-10 and 20-100
  EXPECT_TRUE(follows(whole2, inner_w));  // bytes 10-20
}

TEST_F(DepDomainTest, PartialOverlapOrdersOnlyTheSharedBytes) {
  Task* a = access(DepKind::out, 0, 10);
  Task* b = access(DepKind::out, 5, 15);
  Task* r_tail = access(DepKind::in, 12, 20);
  Task* r_head = access(DepKind::in, 0, 4);
  EXPECT_TRUE(follows(b, a));
  EXPECT_TRUE(follows(r_tail, b));
  EXPECT_FALSE(follows(r_tail, a));
  EXPECT_TRUE(follows(r_head, a));
  EXPECT_FALSE(follows(r_head, b));
}

TEST_F(DepDomainTest, AdjacentAndDisjointRegionsAreIndependent) {
  Task* a = access(DepKind::out, 0, 10);
  Task* b = access(DepKind::out, 10, 20);
  Task* c = access(DepKind::out, 1000, 1010);
  EXPECT_EQ(preds(b), 0);
  EXPECT_EQ(preds(c), 0);
  EXPECT_TRUE(a->successors.empty());
}

TEST_F(DepDomainTest, FinishedPredecessorAddsNoEdge) {
  Task* w = access(DepKind::out, 0, 10);
  w->finished.store(true);
  Task* r = access(DepKind::in, 0, 10);
  EXPECT_EQ(preds(r), 0);
}

TEST_F(DepDomainTest, EmptyRegionOrdersNothing) {
  access(DepKind::out, 50, 60);
  Task* r = access(DepKind::in, 55, 55);
  EXPECT_EQ(preds(r), 0);
}

TEST_F(DepDomainTest, TaskDoesNotFollowItself) {
  Task* t = task();
  domain_.add(t, DepKind::in, 0, 10);
  domain_.add(t, DepKind::out, 0, 10);
  EXPECT_EQ(preds(t), 0);
  Task* next = access(DepKind::in, 0, 10);
  EXPECT_TRUE(follows(next, t));
}

TEST_F(DepDomainTest, CommutativeGroupSharesOneTokenAndNoEdges) {
  Task* w = access(DepKind::out, 0, 10);
  Task* c1 = access(DepKind::commutative, 0, 10);
  Task* c2 = access(DepKind::commutative, 0, 10);
  EXPECT_TRUE(follows(c1, w));
  EXPECT_TRUE(follows(c2, w));
  EXPECT_FALSE(follows(c2, c1));
  ASSERT_EQ(c1->tokens.size(), 1u);
  ASSERT_EQ(c2->tokens.size(), 1u);
  EXPECT_EQ(c1->tokens[0], c2->tokens[0]);
  Task* r = access(DepKind::in, 0, 10);
  EXPECT_TRUE(follows(r, c1));
  EXPECT_TRUE(follows(r, c2));
}

TEST_F(DepDomainTest, OverlappingCommutativeAccessesMeetOnAToken) {
  Task* c1 = access(DepKind::commutative, 0, 10);
  Task* c2 = access(DepKind::commutative, 5, 15);
  bool shared = false;
  for (auto* a : c1->tokens)
    for (auto* b : c2->tokens) shared |= a == b;
  EXPECT_TRUE(shared);
  std::vector<Task*> wake;
  ASSERT_TRUE(acquire_tokens(c1, wake, false));
  EXPECT_FALSE(acquire_tokens(c2, wake, false));  // exclusive while c1 holds it
  release_tokens(c1, wake);
  EXPECT_TRUE(acquire_tokens(c2, wake, false));
  release_tokens(c2, wake);
}

TEST_F(DepDomainTest, ConcurrentGroupIsOrderedAgainstOtherKinds) {
  Task* k1 = access(DepKind::concurrent, 0, 10);
  Task* k2 = access(DepKind::concurrent, 0, 10);
  Task* r = access(DepKind::in, 0, 10);
  Task* c = access(DepKind::commutative, 0, 10);
  EXPECT_EQ(preds(k2), 0);
  EXPECT_TRUE(follows(r, k1));
  EXPECT_TRUE(follows(r, k2));
  EXPECT_TRUE(follows(c, r));
  EXPECT_TRUE(k1->tokens.empty());
}

TEST_F(DepDomainTest, LongReaderGroupsArePruned) {
  access(DepKind::out, 0, 8);
  std::vector<Task*> readers;
  for (int i = 0; i < 64; ++i) {
    Task* r = access(DepKind::in, 0, 8);
    r->finished.store(true);
    readers.push_back(r);
  }
  Task* w = access(DepKind::out, 0, 8);
  EXPECT_LE(preds(w), 1);  // finished readers impose nothing
  EXPECT_LT(domain_.fragment_count(), 2u);
}

TEST_F(DepDomainTest, ClearDropsEveryReference) {
  Task* a = access(DepKind::out, 0, 10);
  access(DepKind::in, 5, 30);
  EXPECT_GT(a->refs.load(), 1);
  domain_.clear();
  EXPECT_EQ(a->refs.load(), 1);
  EXPECT_EQ(domain_.fragment_count(), 0u);
}

// reset() (taskwait) keeps the fragments but drops their history at once: a
// later access to the same bytes, exact or partial, follows none of the
// earlier tasks, and no earlier task is held any more.
TEST_F(DepDomainTest, ResetForgetsHistoryButKeepsFragments) {
  Task* a = access(DepKind::out, 0, 10);
  Task* b = access(DepKind::out, 20, 30);
  const std::size_t kept = domain_.fragment_count();
  domain_.reset();
  EXPECT_EQ(domain_.fragment_count(), kept);
  EXPECT_EQ(a->refs.load(), 1);
  EXPECT_EQ(b->refs.load(), 1);
  Task* exact = access(DepKind::inout, 0, 10);
  EXPECT_EQ(preds(exact), 0);
  Task* partial = access(DepKind::in, 25, 40);  // splits b's old fragment
  EXPECT_EQ(preds(partial), 0);
  Task* after = access(DepKind::inout, 20, 30);  // history of this epoch only
  EXPECT_TRUE(follows(after, partial));
  EXPECT_FALSE(follows(after, b));
  EXPECT_GT(exact->refs.load(), 1);  // this epoch's tasks are held
}

// Fragments used in several epochs are dropped once per reset, whichever way
// they came back (exact reuse, a split, a new gap).
TEST_F(DepDomainTest, EveryEpochReleasesWhatItHeld) {
  std::vector<Task*> held;
  for (int epoch = 0; epoch < 4; ++epoch) {
    held.push_back(access(DepKind::inout, 0, 10));
    held.push_back(access(DepKind::in, 5, 15 + epoch));
    held.push_back(access(DepKind::in, 100 + epoch, 120));
    domain_.reset();
    for (Task* t : held) EXPECT_EQ(t->refs.load(), 1);
  }
}

// More fragments than the node pool's first 60 chunks hold (a shift by the
// chunk count once overflowed there), every one still ordered.
TEST_F(DepDomainTest, ManyFragmentsKeepTheirHistory) {
  constexpr std::uintptr_t kCells = 70000;
  std::vector<Task*> writers, readers;
  for (std::uintptr_t i = 0; i < kCells; ++i)
    writers.push_back(access(DepKind::out, 8 * i, 8 * i + 8));
  for (std::uintptr_t i = 0; i < kCells; ++i)
    readers.push_back(access(DepKind::in, 8 * i, 8 * i + 8));
  EXPECT_EQ(domain_.fragment_count(), kCells);
  for (std::uintptr_t i = 0; i < kCells; ++i) {
    ASSERT_TRUE(follows(readers[i], writers[i])) << "cell " << i;
    ASSERT_EQ(preds(readers[i]), 1) << "cell " << i;
  }
}

// Reader groups larger than the inline room, passed on from current to
// previous group and back: each writer follows exactly the readers before it,
// each reader exactly the writer before it.
TEST_F(DepDomainTest, LargeReaderGroupsRotate) {
  for (int round = 0; round < 4; ++round) {
    Task* w = access(DepKind::inout, 0, 64);
    std::vector<Task*> group;
    const int n = round % 2 ? 2 : 7;
    for (int i = 0; i < n; ++i) group.push_back(access(DepKind::in, 0, 64));
    for (Task* r : group) {
      EXPECT_TRUE(follows(r, w));
      EXPECT_EQ(preds(r), 1);
    }
    Task* next = access(DepKind::inout, 0, 64);
    EXPECT_EQ(preds(next), n);
    for (Task* r : group) EXPECT_TRUE(follows(next, r));
    EXPECT_FALSE(follows(next, w));
  }
}

}  // namespace
}  // namespace joule::engine
