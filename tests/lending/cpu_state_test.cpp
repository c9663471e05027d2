// Every transition of the CPU ownership state machine, legal and illegal,
// against a table written out by hand (not derived from the code).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cpu_state.hpp"

namespace {

using namespace joule::lending;
using S = CpuState;
using O = Outcome;

constexpr pid_t kOwner = 100, kGuest = 200, kOther = 300;

struct Row {
  CpuWord from;
  CpuOp op;
  pid_t actor;
  Outcome outcome;
  CpuWord to;  // ignored when Illegal or NoChange (must equal from)
};

const CpuWord kDisabled{};
const CpuWord kBusy{S::Busy, kOwner, 0};
const CpuWord kIdle{S::Idle, kOwner, 0};
const CpuWord kBorrowed{S::Borrowed, kOwner, kGuest};
const CpuWord kClaimed{S::Claimed, kOwner, kGuest};
const CpuWord kOrphan{S::Claimed, 0, kGuest};  // claimed, its owner gone

std::vector<Row> expected_table() {
  const CpuWord busy_other{S::Busy, kOther, 0};
  const CpuWord busy_guest{S::Busy, kGuest, 0};
  const CpuWord claimed_other{S::Claimed, kOther, kGuest};
  return {
      // Disabled: only Own, by anyone.
      {kDisabled, CpuOp::Own, kOwner, O::Done, kBusy},
      {kDisabled, CpuOp::Own, kOther, O::Done, busy_other},
      {kDisabled, CpuOp::Disown, kOwner, O::Illegal, kDisabled},
      {kDisabled, CpuOp::Lend, kOwner, O::Illegal, kDisabled},
      {kDisabled, CpuOp::Reclaim, kOwner, O::Illegal, kDisabled},
      {kDisabled, CpuOp::Borrow, kOther, O::Illegal, kDisabled},
      {kDisabled, CpuOp::Return, kGuest, O::Illegal, kDisabled},
      {kDisabled, CpuOp::Revoke, kOwner, O::Illegal, kDisabled},
      // Busy: the owner lends or leaves; nobody else may touch it.
      {kBusy, CpuOp::Own, kOwner, O::NoChange, kBusy},
      {kBusy, CpuOp::Own, kOther, O::Illegal, kBusy},
      {kBusy, CpuOp::Disown, kOwner, O::Done, kDisabled},
      {kBusy, CpuOp::Disown, kOther, O::Illegal, kBusy},
      {kBusy, CpuOp::Lend, kOwner, O::Done, kIdle},
      {kBusy, CpuOp::Lend, kOther, O::Illegal, kBusy},
      {kBusy, CpuOp::Reclaim, kOwner, O::NoChange, kBusy},
      {kBusy, CpuOp::Reclaim, kOther, O::Illegal, kBusy},
      {kBusy, CpuOp::Borrow, kOther, O::Illegal, kBusy},
      {kBusy, CpuOp::Borrow, kOwner, O::Illegal, kBusy},
      {kBusy, CpuOp::Return, kOwner, O::Illegal, kBusy},
      {kBusy, CpuOp::Return, kOther, O::Illegal, kBusy},
      {kBusy, CpuOp::Revoke, kOwner, O::NoChange, kBusy},
      // Idle: others borrow, the owner takes it straight back.
      {kIdle, CpuOp::Own, kOther, O::Illegal, kIdle},
      {kIdle, CpuOp::Own, kOwner, O::NoChange, kIdle},
      {kIdle, CpuOp::Disown, kOwner, O::Done, kDisabled},
      {kIdle, CpuOp::Disown, kOther, O::Illegal, kIdle},
      {kIdle, CpuOp::Lend, kOwner, O::NoChange, kIdle},
      {kIdle, CpuOp::Lend, kOther, O::Illegal, kIdle},
      {kIdle, CpuOp::Reclaim, kOwner, O::Done, kBusy},
      {kIdle, CpuOp::Reclaim, kOther, O::Illegal, kIdle},
      {kIdle, CpuOp::Borrow, kGuest, O::Done, kBorrowed},
      {kIdle, CpuOp::Borrow, kOwner, O::Illegal, kIdle},
      {kIdle, CpuOp::Return, kGuest, O::Illegal, kIdle},
      {kIdle, CpuOp::Return, kOwner, O::Illegal, kIdle},
      {kIdle, CpuOp::Revoke, kOwner, O::NoChange, kIdle},
      // Borrowed: the owner claims, the guest returns.
      {kBorrowed, CpuOp::Own, kOther, O::Illegal, kBorrowed},
      {kBorrowed, CpuOp::Own, kGuest, O::Illegal, kBorrowed},
      {kBorrowed, CpuOp::Own, kOwner, O::NoChange, kBorrowed},
      {kBorrowed, CpuOp::Disown, kOwner, O::Done, kOrphan},
      {kBorrowed, CpuOp::Disown, kGuest, O::Illegal, kBorrowed},
      {kBorrowed, CpuOp::Lend, kOwner, O::NoChange, kBorrowed},
      {kBorrowed, CpuOp::Lend, kGuest, O::Illegal, kBorrowed},
      {kBorrowed, CpuOp::Reclaim, kOwner, O::Pending, kClaimed},
      {kBorrowed, CpuOp::Reclaim, kGuest, O::Illegal, kBorrowed},
      {kBorrowed, CpuOp::Reclaim, kOther, O::Illegal, kBorrowed},
      {kBorrowed, CpuOp::Borrow, kGuest, O::NoChange, kBorrowed},
      {kBorrowed, CpuOp::Borrow, kOther, O::Illegal, kBorrowed},
      {kBorrowed, CpuOp::Borrow, kOwner, O::Illegal, kBorrowed},
      {kBorrowed, CpuOp::Return, kGuest, O::Done, kIdle},
      {kBorrowed, CpuOp::Return, kOwner, O::Illegal, kBorrowed},
      {kBorrowed, CpuOp::Return, kOther, O::Illegal, kBorrowed},
      {kBorrowed, CpuOp::Revoke, kOwner, O::NoChange, kBorrowed},
      {kBorrowed, CpuOp::Revoke, kGuest, O::Illegal, kBorrowed},
      // Claimed: the guest gives it back to the owner; the owner may withdraw.
      {kClaimed, CpuOp::Own, kOther, O::Illegal, kClaimed},
      {kClaimed, CpuOp::Own, kOwner, O::NoChange, kClaimed},
      {kClaimed, CpuOp::Disown, kOwner, O::Done, kOrphan},
      {kClaimed, CpuOp::Disown, kGuest, O::Illegal, kClaimed},
      {kClaimed, CpuOp::Lend, kOwner, O::Done, kBorrowed},
      {kClaimed, CpuOp::Lend, kGuest, O::Illegal, kClaimed},
      {kClaimed, CpuOp::Reclaim, kOwner, O::NoChange, kClaimed},
      {kClaimed, CpuOp::Reclaim, kGuest, O::Illegal, kClaimed},
      {kClaimed, CpuOp::Borrow, kGuest, O::Illegal, kClaimed},
      {kClaimed, CpuOp::Borrow, kOther, O::Illegal, kClaimed},
      {kClaimed, CpuOp::Return, kGuest, O::Done, kBusy},
      {kClaimed, CpuOp::Return, kOwner, O::Illegal, kClaimed},
      {kClaimed, CpuOp::Return, kOther, O::Illegal, kClaimed},
      // Past the reclaim deadline the owner takes it from an unresponsive guest.
      {kClaimed, CpuOp::Revoke, kOwner, O::Done, kBusy},
      {kClaimed, CpuOp::Revoke, kGuest, O::Illegal, kClaimed},
      // Claimed without an owner: the guest's return disables it; a new
      // owner may adopt it (pending until the guest returns).
      {kOrphan, CpuOp::Return, kGuest, O::Done, kDisabled},
      {kOrphan, CpuOp::Return, kOther, O::Illegal, kOrphan},
      {kOrphan, CpuOp::Revoke, kGuest, O::Illegal, kOrphan},
      {kOrphan, CpuOp::Own, kOther, O::Pending, claimed_other},
      {kOrphan, CpuOp::Own, kGuest, O::Done, busy_guest},
      {kOrphan, CpuOp::Disown, kOther, O::Illegal, kOrphan},
      {kOrphan, CpuOp::Lend, kOther, O::Illegal, kOrphan},
      {kOrphan, CpuOp::Reclaim, kOther, O::Illegal, kOrphan},
      {kOrphan, CpuOp::Borrow, kOther, O::Illegal, kOrphan},
      {kOrphan, CpuOp::Borrow, kGuest, O::Illegal, kOrphan},
  };
}

std::string describe(const Row& r) {
  return std::string(state_name(r.from.state)) + "(" + std::to_string(r.from.owner) + "," +
         std::to_string(r.from.guest) + ") " + op_name(r.op) + " by " + std::to_string(r.actor);
}

TEST(CpuState, EveryListedTransition) {
  for (const Row& r : expected_table()) {
    const Transition t = apply(r.from, r.op, r.actor);
    EXPECT_EQ(t.outcome, r.outcome) << describe(r) << ": got " << outcome_name(t.outcome);
    if (r.outcome == O::Illegal || r.outcome == O::NoChange)
      EXPECT_EQ(t.next, r.from) << describe(r);
    else
      EXPECT_EQ(t.next, r.to) << describe(r);
  }
}

// The listed rows cover every (state, op) pair; any actor not listed is a
// stranger, for whom only Own of a free CPU and Borrow of an idle one work.
TEST(CpuState, StrangersCanOnlyOwnFreeOrBorrowIdle) {
  for (const CpuWord& w : {kDisabled, kBusy, kIdle, kBorrowed, kClaimed, kOrphan}) {
    for (int op = 0; op < kNumOps; ++op) {
      const Transition t = apply(w, CpuOp(op), kOther);
      const bool may = (CpuOp(op) == CpuOp::Own && (w.state == S::Disabled || w.owner == 0)) ||
                       (CpuOp(op) == CpuOp::Borrow && w.state == S::Idle);
      EXPECT_EQ(t.outcome != O::Illegal, may) << state_name(w.state) << " " << op_name(CpuOp(op));
    }
  }
}

TEST(CpuState, PairsAreAllCovered) {
  bool seen[kNumStates][kNumOps] = {};
  for (const Row& r : expected_table()) seen[int(r.from.state)][int(r.op)] = true;
  for (int s = 0; s < kNumStates; ++s)
    for (int op = 0; op < kNumOps; ++op)
      EXPECT_TRUE(seen[s][op]) << state_name(S(s)) << " x " << op_name(CpuOp(op));
}

TEST(CpuState, MalformedWordsAndActorsAreRefused) {
  const std::vector<CpuWord> bad = {
      {S::Disabled, kOwner, 0},      {S::Busy, 0, 0},
      {S::Busy, kOwner, kGuest},     {S::Idle, 0, 0},
      {S::Borrowed, kOwner, 0},      {S::Borrowed, 0, kGuest},
      {S::Borrowed, kOwner, kOwner}, {S::Claimed, kOwner, 0},
      {CpuState(7), kOwner, 0},
  };
  for (const CpuWord& w : bad) {
    EXPECT_FALSE(valid(w));
    for (int op = 0; op < kNumOps; ++op) EXPECT_EQ(apply(w, CpuOp(op), kOwner).outcome, O::Illegal);
  }
  EXPECT_EQ(apply(kIdle, CpuOp::Borrow, 0).outcome, O::Illegal);
  EXPECT_EQ(apply(kDisabled, CpuOp::Own, -5).outcome, O::Illegal);
}

TEST(CpuState, PackRoundTrips) {
  for (const CpuWord& w : {kDisabled, kBusy, kIdle, kBorrowed, kClaimed, kOrphan,
                           CpuWord{S::Borrowed, (1 << 22) - 1, (1 << 22) - 2}}) {
    EXPECT_EQ(CpuWord::unpack(w.pack()), w);
  }
}

TEST(CpuState, RunnerIsUniqueAndOnlyOwnerOrGuest) {
  EXPECT_EQ(runner(kDisabled), 0);
  EXPECT_EQ(runner(kBusy), kOwner);
  EXPECT_EQ(runner(kIdle), 0);
  EXPECT_EQ(runner(kBorrowed), kGuest);
  EXPECT_EQ(runner(kClaimed), kGuest);
  EXPECT_TRUE(runs_on(kClaimed, kGuest));
  EXPECT_FALSE(runs_on(kClaimed, kOwner));
  EXPECT_FALSE(runs_on(kIdle, kOwner));
}

// A random walk over many actors never leaves the set of valid words, and
// every successful step is taken by an actor entitled to it.
TEST(CpuState, RandomWalkKeepsWordsValid) {
  std::mt19937 rng(12345);
  const pid_t actors[] = {11, 22, 33, 44};
  CpuWord w{};
  for (int i = 0; i < 200000; ++i) {
    const pid_t a = actors[rng() % 4];
    const CpuOp op = CpuOp(rng() % kNumOps);
    const Transition t = apply(w, op, a);
    ASSERT_TRUE(valid(t.next)) << i;
    if (t.outcome == O::Done || t.outcome == O::Pending) {
      if (op == CpuOp::Lend || op == CpuOp::Reclaim || op == CpuOp::Disown || op == CpuOp::Revoke) {
        ASSERT_EQ(w.owner, a);
      }
      if (op == CpuOp::Return) {
        ASSERT_EQ(w.guest, a);
      }
      if (op == CpuOp::Borrow) {
        ASSERT_NE(w.owner, a);
      }
      // A CPU changes runner in one step only when the runner gives it up,
      // or when its owner revokes a claimed CPU.
      const pid_t before = runner(w), after = runner(t.next);
      if (before && after && before != after && op != CpuOp::Revoke) {
        ASSERT_EQ(op, CpuOp::Return) << i;
        ASSERT_EQ(a, before) << i;
      }
    }
    w = t.next;
  }
}

}  // namespace
