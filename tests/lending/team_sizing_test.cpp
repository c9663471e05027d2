// The calls the OpenMP layer (a later issue) sizes its teams with at each
// parallel region: how many CPUs can I use now, borrow up to n, give back.
// Two processes with one CPU each (fork), public C API only.
#include <gtest/gtest.h>

#include <stdlib.h>

#include "joule/joule.h"
#include "lending_support.hpp"

namespace {

using namespace lending_test;

class TeamSizing : public NodeLendingTest {
 protected:
  TeamSizing() : NodeLendingTest("team") {}
};

int available() {
  int n = -1;
  return joule_cpus_available_now(&n) == JOULE_OK ? n : -1;
}

int state_of(int cpu) {
  joule_cpu_info_t i{};
  joule_get_cpu_info(cpu, &i);
  return i.state;
}

// A team grows onto the other process's lent CPU, shrinks back, and stops
// counting it once its owner takes it back; the max-parallelism hint caps it.
TEST_F(TeamSizing, AvailableBorrowUpToAndGiveBack) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    CHILD_CHECK(pin_to(1));
    CHILD_CHECK(joule_lending_start(JOULE_LENDING_NODE) == JOULE_OK);
    CHILD_CHECK(joule_lend_cpu(1) == JOULE_OK);
    to_parent.send('L');
    CHILD_CHECK(to_child.recv() == 'R');
    CHILD_CHECK(joule_reclaim_cpu(1) == JOULE_OK);  // idle again: back at once
    to_parent.send('R');
    CHILD_CHECK(to_child.recv() == 'Q');
    CHILD_CHECK(joule_lending_stop() == JOULE_OK);
  });
  ASSERT_TRUE(pin_to(0));
  ASSERT_EQ(joule_lending_start(JOULE_LENDING_NODE), JOULE_OK);
  ASSERT_EQ(to_parent.recv(), 'L');
  EXPECT_EQ(available(), 2);  // ours and the lent one

  int cpus[4] = {-1, -1, -1, -1}, got = -1, given = -1;
  ASSERT_EQ(joule_borrow_up_to(4, cpus, &got), JOULE_OK);
  ASSERT_EQ(got, 1);  // never more than there are
  EXPECT_EQ(cpus[0], 1);
  EXPECT_EQ(state_of(1), JOULE_CPU_BORROWED);
  EXPECT_EQ(available(), 2);  // held now
  EXPECT_EQ(joule_borrow_up_to(4, cpus, &got), JOULE_OK);
  EXPECT_EQ(got, 0);  // nothing left to take

  cpus[0] = -1;
  ASSERT_EQ(joule_give_back(4, cpus, &given), JOULE_OK);
  EXPECT_EQ(given, 1);  // the borrowed one, never the caller's own
  EXPECT_EQ(cpus[0], 1);
  EXPECT_EQ(state_of(1), JOULE_CPU_IDLE);
  EXPECT_EQ(state_of(0), JOULE_CPU_BUSY);

  EXPECT_EQ(joule_set_max_parallelism(1), JOULE_OK);
  EXPECT_EQ(available(), 1);
  EXPECT_EQ(joule_borrow_up_to(4, nullptr, &got), JOULE_OK);
  EXPECT_EQ(got, 0);  // the cap holds for borrowing too
  EXPECT_EQ(joule_set_max_parallelism(0), JOULE_OK);

  to_child.send('R');
  ASSERT_EQ(to_parent.recv(), 'R');
  EXPECT_EQ(available(), 1);  // its owner has it back
  EXPECT_EQ(joule_borrow_up_to(1, nullptr, &got), JOULE_OK);
  EXPECT_EQ(got, 0);
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
}

}  // namespace
