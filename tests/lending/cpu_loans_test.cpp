// CpuLoans on a private table, two processes played by their pids (the
// table only records them): what each counts as borrowed while CPUs are
// lent, borrowed, claimed by their owner and given back.
#include <gtest/gtest.h>

#include "cpu_loans.hpp"

namespace {

using namespace joule::lending;

constexpr pid_t kUs = 4001;
constexpr pid_t kOther = 4002;

class CpuLoansTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (table_->ncpus() < 2) GTEST_SKIP() << "needs a table of 2 CPUs";
    ASSERT_EQ(table_->apply(0, CpuOp::Own, kUs).outcome, Outcome::Done);
    ASSERT_EQ(table_->apply(1, CpuOp::Own, kOther).outcome, Outcome::Done);
  }
  std::unique_ptr<CpuTable> table_ = CpuTable::open_private();
  Hints hints_;
  Nearness nearness_;
  CpuLoans us_{*table_, kUs, hints_, nearness_, 500};
  CpuLoans other_{*table_, kOther, hints_, nearness_, 500};
};

TEST_F(CpuLoansTest, OwnCpusAreNotBorrowed) {
  EXPECT_EQ(us_.borrowed_count(), 0);
  EXPECT_EQ(us_.held_count(), 1);
  ASSERT_EQ(us_.lend_cpu(0), Outcome::Done);  // lent, idle: still nobody's loan
  EXPECT_EQ(us_.borrowed_count(), 0);
  EXPECT_EQ(other_.borrowed_count(), 0);
}

TEST_F(CpuLoansTest, BorrowedCountsUntilGivenBackClaimedIncluded) {
  ASSERT_EQ(other_.lend_cpu(1), Outcome::Done);
  ASSERT_EQ(us_.borrow_cpu(1), Outcome::Done);
  EXPECT_EQ(us_.borrowed_count(), 1);
  EXPECT_EQ(us_.held_count(), 2);
  EXPECT_EQ(other_.borrowed_count(), 0);  // the owner does not count its own CPU

  ASSERT_EQ(other_.reclaim_cpu(1), Outcome::Pending);  // Claimed: we still run there
  EXPECT_EQ(table_->load(1).state, CpuState::Claimed);
  EXPECT_EQ(us_.borrowed_count(), 1);

  ASSERT_EQ(us_.return_cpu(1), Outcome::Done);
  EXPECT_EQ(us_.borrowed_count(), 0);
  EXPECT_EQ(us_.held_count(), 1);
}

TEST_F(CpuLoansTest, EachSideCountsOnlyTheCpusItIsTheGuestOf) {
  ASSERT_EQ(other_.lend_cpu(1), Outcome::Done);
  ASSERT_EQ(us_.lend_cpu(0), Outcome::Done);
  ASSERT_EQ(us_.borrow_cpu(1), Outcome::Done);
  ASSERT_EQ(other_.borrow_cpu(0), Outcome::Done);
  EXPECT_EQ(us_.borrowed_count(), 1);
  EXPECT_EQ(other_.borrowed_count(), 1);
  ASSERT_EQ(table_->apply(1, CpuOp::Disown, kOther).outcome, Outcome::Done);  // its owner left
  EXPECT_EQ(us_.borrowed_count(), 1) << table_->load(1).owner;
}

}  // namespace
