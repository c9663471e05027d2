// Ready-queue policies on their own: the order each one hands tasks out.
#include <gtest/gtest.h>

#include <vector>

#include "policy_registry.hpp"
#include "task_pool.hpp"

namespace joule::sched {
namespace {

struct Tasks {
  std::vector<Task*> all;
  Task* make(int priority = 0, std::uint64_t affinity = JOULE_NO_AFFINITY) {
    Task* t = rt::TaskPool::make_task(nullptr, 0, 16);
    t->priority = priority;
    t->affinity = affinity;
    all.push_back(t);
    return t;
  }
  ~Tasks() {
    for (Task* t : all) rt::release(t);
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
  Task* a = ts.make();
  Task* b = ts.make();
  Task* c = ts.make();
  q->push(a, 0);
  q->push(b, 0);
  q->push(c, 0);
  EXPECT_EQ(q->pop(0), c);  // own: newest
  EXPECT_EQ(q->pop(1), a);  // thief: oldest
  EXPECT_EQ(q->pop(1), b);
  EXPECT_EQ(q->pop(0), nullptr);
}

TEST(Policies, WorkStealingHonoursAffinityKeys) {
  Tasks ts;
  auto q = make_policy("work-stealing", 4);
  Task* t = ts.make(0, 6);  // 6 % 4 = worker 2
  q->push(t, 0);
  EXPECT_EQ(q->pop(2), t);
}

}  // namespace
}  // namespace joule::sched
