// DomainCache and DepDomain's retire/adopt: a finished parent's domain goes
// to the next parent on the worker with its fragments but none of its
// history, and a recycled domain whose new owner found none of them again
// comes back empty.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "dep_domain.hpp"
#include "dep_domain_view.hpp"
#include "domain_cache.hpp"
#include "task_pool.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

class DomainCacheTest : public ::testing::Test {
 protected:
  ~DomainCacheTest() override {
    for (Task* t : tasks_) {
      EXPECT_EQ(t->refs.load(), 1) << "a retired domain kept a reference";
      release(t);
    }
  }
  Task* task() {
    tasks_.push_back(TaskPool::make_task(nullptr, 0, 16));
    return tasks_.back();
  }
  Task* access(DepDomain* d, DepKind k, std::uintptr_t lo, std::uintptr_t hi) {
    Task* t = task();
    d->add(t, k, lo, hi);
    return t;
  }
  // Every child of a domain's owner finishes before the owner does.
  static void finish_all(const std::vector<Task*>& ts) {
    for (Task* t : ts) t->finished.store(true);
  }
  static bool follows(Task* succ, Task* pred) {
    return std::any_of(pred->successors.begin(), pred->successors.end(),
                       [&](Task* s) { return untag(s) == succ; });
  }
  static std::size_t live() { return view_dependencies(DepViewLimits{}).live; }
  // As the engine asks: the kept domain, else a new one.
  static DepDomain* take(DomainCache& c, Task* owner) {
    DepDomain* d = c.take(owner);
    return d ? d : new DepDomain(owner);
  }

  DomainCache cache_;
  std::vector<Task*> tasks_;
};

TEST_F(DomainCacheTest, TheNextOwnerGetsTheFragmentsWithoutTheirHistory) {
  Task* first = task();
  DepDomain* d = take(cache_, first);
  Task* w = access(d, DepKind::out, 0, 64);
  Task* r = access(d, DepKind::in, 64, 128);
  EXPECT_EQ(d->owner(), first);
  finish_all({w, r});
  const std::size_t before = live();
  cache_.give(d);
  EXPECT_EQ(live(), before - 1) << "a kept domain has no owner: the dump does not list it";

  Task* second = task();
  DepDomain* again = take(cache_, second);
  EXPECT_EQ(again, d);
  EXPECT_EQ(again->owner(), second);
  EXPECT_EQ(again->fragment_count(), 2u);
  EXPECT_EQ(live(), before);
  Task* w2 = access(again, DepKind::inout, 0, 64);
  Task* r2 = access(again, DepKind::in, 0, 64);
  EXPECT_EQ(w2->pred_edges, 0) << "the earlier owner's children are not the new one's";
  EXPECT_FALSE(follows(w2, w));
  EXPECT_TRUE(follows(r2, w2));
  finish_all({w2, r2});
  cache_.give(again);
}

TEST_F(DomainCacheTest, AUsefulRecycledDomainKeepsItsFragments) {
  DepDomain* d = take(cache_, task());
  for (std::uintptr_t a = 0; a < 4; ++a) access(d, DepKind::inout, a * 64, a * 64 + 64);
  finish_all(tasks_);
  cache_.give(d);
  d = take(cache_, task());
  // Three of the four found again and one new: worth keeping.
  for (std::uintptr_t a = 1; a < 5; ++a) access(d, DepKind::inout, a * 64, a * 64 + 64);
  finish_all(tasks_);
  cache_.give(d);
  EXPECT_EQ(take(cache_, task())->fragment_count(), 5u);
  cache_.give(d);
}

TEST_F(DomainCacheTest, ARecycledDomainWhoseOwnerUsedOtherDataComesBackEmpty) {
  DepDomain* d = take(cache_, task());
  for (std::uintptr_t a = 0; a < 4; ++a) access(d, DepKind::inout, a * 64, a * 64 + 64);
  finish_all(tasks_);
  cache_.give(d);
  d = take(cache_, task());
  for (std::uintptr_t a = 100; a < 104; ++a) access(d, DepKind::inout, a * 64, a * 64 + 64);
  finish_all(tasks_);
  cache_.give(d);
  d = take(cache_, task());
  EXPECT_EQ(d->fragment_count(), 0u) << "fragments nobody found again are dropped";
  // Fresh again: its next owner's fragments get their chance.
  access(d, DepKind::inout, 0, 64);
  finish_all(tasks_);
  cache_.give(d);
  EXPECT_EQ(take(cache_, task())->fragment_count(), 1u);
  cache_.give(d);
}

TEST_F(DomainCacheTest, AnEmptyCacheGivesNothing) {
  EXPECT_EQ(cache_.take(task()), nullptr);
  DepDomain* d = take(cache_, task());
  cache_.give(d);
  EXPECT_EQ(cache_.take(task()), d);
  EXPECT_EQ(cache_.take(task()), nullptr) << "one kept domain, taken once";
  cache_.give(d);
}

TEST_F(DomainCacheTest, GivingReplacesTheKeptDomain) {
  DepDomain* a = take(cache_, task());
  DepDomain* b = take(cache_, task());
  EXPECT_NE(a, b) << "one kept domain per worker: the second owner gets a new one";
  cache_.give(a);
  cache_.give(b);  // a is deleted (ASan would see a leak or a double free)
  EXPECT_EQ(take(cache_, task()), b);
  cache_.give(b);
}

// The dump's registry lists each owned domain once, however often domains
// left and rejoined it: 64 domains share 16 shards, each goes through its
// cache twice, and each ends with an unfinished task the dump must show.
TEST_F(DomainCacheTest, TheDumpListsEveryOwnedDomainAfterRecycling) {
  const std::size_t before = live();
  std::vector<DepDomain*> owned;
  std::vector<DomainCache> caches(64);
  for (DomainCache& c : caches) owned.push_back(take(c, task()));
  // Twice in a row: the second time the domain is the first of its shard's
  // list, where it went back (an earlier listing's links must not count).
  for (std::size_t i = 0; i < owned.size(); ++i) {
    for (int round = 0; round < 2; ++round) {
      caches[i].give(owned[i]);
      owned[i] = take(caches[i], task());
    }
  }
  std::vector<Task*> unfinished;
  for (std::size_t i = 0; i < owned.size(); ++i)
    unfinished.push_back(access(owned[i], DepKind::inout, i * 64, i * 64 + 64));
  DepViewLimits limits;
  limits.domains = 1000;
  const DepViews v = view_dependencies(limits);
  EXPECT_EQ(v.live, before + owned.size());
  EXPECT_EQ(v.domains.size(), owned.size());
  finish_all(unfinished);
  for (std::size_t i = 0; i < owned.size(); ++i) caches[i].give(owned[i]);
  EXPECT_EQ(live(), before);
}

}  // namespace
}  // namespace joule::engine
