// Reduction groups in a DepDomain and their ReductionSlot: who joins, who
// follows, and when the copies are folded.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "dep_domain.hpp"
#include "joule/joule.hpp"
#include "reduction_slot.hpp"
#include "task_pool.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

const joule_reduction_op_t* sum_long() { return &detail::reduction_desc<long, red::sum>::value; }
const joule_reduction_op_t* max_long() { return &detail::reduction_desc<long, red::max>::value; }

class ReductionDomainTest : public ::testing::Test {
 protected:
  ReductionDomainTest() { parent_ = TaskPool::make_task(nullptr, 0, 16); }
  ~ReductionDomainTest() override {
    domain_.clear();
    for (Task* t : tasks_) {
      EXPECT_EQ(t->refs.load(), 1) << "the domain leaked a reference";
      release(t);
    }
    release(parent_);
  }
  Task* access(DepKind k, const void* p, std::size_t bytes,
               const joule_reduction_op_t* op = nullptr) {
    Task* t = TaskPool::make_task(nullptr, 0, 16);
    t->parent = parent_;
    tasks_.push_back(t);
    const auto lo = reinterpret_cast<std::uintptr_t>(p);
    domain_.add(t, k, lo, lo + bytes, op);
    return t;
  }
  // What TaskLifecycle::complete does for a member: leave its groups.
  static void complete(Task* t) {
    for (ReductionMember* m = t->reductions; m; m = m->next) m->slot->leave();
  }
  static int groups(const Task* t) {
    int n = 0;
    for (ReductionMember* m = t->reductions; m; m = m->next) ++n;
    return n;
  }
  static ReductionSlot* slot(const Task* t) {
    return t->reductions ? t->reductions->slot : nullptr;
  }
  static bool follows(Task* succ, Task* pred) {
    return std::any_of(pred->successors.begin(), pred->successors.end(),
                       [&](Task* s) { return untag(s) == succ; });
  }

  Task* parent_;
  DepDomain domain_;
  std::vector<Task*> tasks_;
};

// P contending reducers: one group, no edges among them and no token, so
// each is queued once when created: O(P) queue operations, no re-queueing.
TEST_F(ReductionDomainTest, ReducersOfOneRegionAndOperatorFormOneGroup) {
  long x = 0;
  std::vector<Task*> members;
  for (int i = 0; i < 64; ++i) members.push_back(access(DepKind::reduction, &x, 8, sum_long()));
  for (Task* m : members) {
    EXPECT_EQ(m->pred_edges, 0);
    EXPECT_TRUE(m->tokens.empty());
    ASSERT_EQ(groups(m), 1);
    EXPECT_EQ(slot(m), slot(members[0]));
  }
  Task* reader = access(DepKind::in, &x, 8);
  EXPECT_EQ(reader->pred_edges, 64);
  for (Task* m : members) complete(m);
}

TEST_F(ReductionDomainTest, AnotherOperatorOrRegionStartsAnOrderedGroup) {
  long a[2] = {0, 0};
  Task* s1 = access(DepKind::reduction, a, 16, sum_long());
  Task* m1 = access(DepKind::reduction, a, 16, max_long());
  Task* s2 = access(DepKind::reduction, a, 8, max_long());  // a sub-region
  EXPECT_TRUE(follows(m1, s1));
  EXPECT_TRUE(follows(s2, m1));
  EXPECT_NE(slot(s1), slot(m1));
  EXPECT_NE(slot(m1), slot(s2));
  for (Task* t : {s1, m1, s2}) complete(t);
}

// The fold waits for both the close and the last member, whichever is last.
TEST_F(ReductionDomainTest, FoldAfterCloseAndEveryMember) {
  long x = 10;
  Task* m1 = access(DepKind::reduction, &x, 8, sum_long());
  Task* m2 = access(DepKind::reduction, &x, 8, sum_long());
  ReductionSlot* group = slot(m1);
  *static_cast<long*>(group->private_copy()) += 5;  // both ran on this thread
  *static_cast<long*>(group->private_copy()) += 7;
  complete(m1);
  access(DepKind::in, &x, 8);  // closes the group
  EXPECT_TRUE(group->closed());
  EXPECT_EQ(x, 10);  // m2 still runs
  complete(m2);
  EXPECT_EQ(x, 22);

  Task* m3 = access(DepKind::reduction, &x, 8, sum_long());
  *static_cast<long*>(slot(m3)->private_copy()) += 1;
  complete(m3);
  EXPECT_EQ(x, 22);  // open: nothing followed yet
  domain_.reset();   // taskwait
  EXPECT_EQ(x, 23);
}

// A group below a member of a reduction on the same data folds into the
// parent group's copy, not into the data.
TEST_F(ReductionDomainTest, NestedGroupFoldsIntoTheParentsCopy) {
  long x = 1;
  Task* member = access(DepKind::reduction, &x, 8, sum_long());
  ReductionSlot* outer = slot(member);
  DepDomain inner;
  Task* child = TaskPool::make_task(nullptr, 0, 16);
  child->parent = member;
  const auto lo = reinterpret_cast<std::uintptr_t>(&x);
  inner.add(child, DepKind::reduction, lo, lo + 8, sum_long());
  *static_cast<long*>(slot(child)->private_copy()) += 4;
  complete(child);
  inner.clear();  // the member's domain ends
  EXPECT_EQ(x, 1);
  EXPECT_EQ(*static_cast<long*>(outer->private_copy()), 4);
  release(child);
  complete(member);
  domain_.reset();
  EXPECT_EQ(x, 5);
}

}  // namespace
}  // namespace joule::engine
