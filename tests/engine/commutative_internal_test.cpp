// CommutativeToken hands a released token to one waiter when every waiter
// needs that token alone (P releases wake P tasks, not P^2), and to all of
// them while a waiter needs several tokens (it may fail on another without
// ever holding this one, so waking it alone could leave the token idle).
#include <gtest/gtest.h>

#include <vector>

#include "commutative.hpp"

namespace joule::engine {
namespace {

struct Tokens {
  std::vector<CommutativeToken*> all;
  CommutativeToken* make() { return all.emplace_back(new CommutativeToken); }
  ~Tokens() {
    for (CommutativeToken* t : all) t->unref();
  }
};

void forget_tokens(std::vector<Task>& tasks) {
  for (Task& t : tasks) {
    for (CommutativeToken* tok : t.tokens) tok->unref();
    t.tokens.clear();
  }
}

TEST(CommutativeToken, ReleaseHandsTheTokenToOneSingleTokenWaiter) {
  Tokens toks;
  CommutativeToken* tok = toks.make();
  std::vector<Task> tasks(8);
  for (Task& t : tasks) hold_token(&t, tok);
  ASSERT_TRUE(tok->try_acquire());
  for (Task& t : tasks) ASSERT_TRUE(tok->park_if_busy(&t));
  std::vector<Task*> wake;
  int woken = 0;
  for (Task& expected : tasks) {
    wake.clear();
    tok->release(wake);
    ASSERT_EQ(wake.size(), 1u);     // one re-queue per release
    EXPECT_EQ(wake[0], &expected);  // the one parked longest
    ++woken;
    ASSERT_TRUE(tok->try_acquire());  // the woken task takes it, runs, releases
  }
  wake.clear();
  tok->release(wake);
  EXPECT_TRUE(wake.empty());
  EXPECT_EQ(woken, 8);
  forget_tokens(tasks);
}

TEST(CommutativeToken, AWaiterWithSeveralTokensWakesEveryone) {
  Tokens toks;
  CommutativeToken* a = toks.make();
  CommutativeToken* b = toks.make();
  std::vector<Task> tasks(3);
  hold_token(&tasks[0], a);
  hold_token(&tasks[1], a);
  hold_token(&tasks[1], b);  // needs both
  hold_token(&tasks[2], a);
  ASSERT_TRUE(a->try_acquire());
  for (Task& t : tasks) ASSERT_TRUE(a->park_if_busy(&t));
  std::vector<Task*> wake;
  a->release(wake);
  EXPECT_EQ(wake.size(), 3u);
  // All of them left: the next release has no one to wake.
  ASSERT_TRUE(a->try_acquire());
  wake.clear();
  a->release(wake);
  EXPECT_TRUE(wake.empty());
  forget_tokens(tasks);
}

}  // namespace
}  // namespace joule::engine
