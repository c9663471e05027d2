// What a hostile or broken peer can do to a process's CPUs, two processes
// (fork) on one table: DROM masks that could never be acknowledged are
// refused, a pending request does not hold up the next one, and a borrower
// that stops (SIGSTOP) loses a reclaimed CPU at the reclaim deadline.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <sstream>

#include "lending_session.hpp"
#include "lending_support.hpp"
#include "table_print.hpp"

namespace {

using namespace joule::lending;
using namespace lending_test;
using Clock = std::chrono::steady_clock;

LendingOptions node_options(const std::string& shm, unsigned reclaim_ms = 500) {
  LendingOptions o;
  o.mode = "node";
  o.shm = shm;
  o.reclaim_timeout_ms = reclaim_ms;
  return o;
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A runtime's process in miniature: owns CPUs 0 and 1, polls DROM like
// poll_drom, and the worker of CPU 1 parks when its CPU leaves the mask.
// With `home`, CPU 0 is worker 0's (set_home_cpu); that worker never parks.
void run_target(const std::string& shm, bool home, Channel& to_parent, Channel& to_child) {
  auto c = Session::join(node_options(shm), {0, 1});
  c->drom().attach_runtime(true);
  if (home) c->drom().set_home_cpu(0);
  to_parent.send('J');
  std::vector<int> mask;
  while (to_child.recv(1) != 'Q') {
    c->drom().poll_mask(mask);
    if (c->must_return(1)) c->wait_for_change(1, 1000);
  }
}

class DromHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (online_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  }
  AffinityGuard affinity_;
  ShmGuard shm_{unique_shm("drom-hostile")};
};

// An empty mask, or one without worker 0's CPU, could never be acknowledged
// (that thread never parks): refused at once, and the next valid request is
// acknowledged on its own, quickly.
TEST_F(DromHostile, MaskWithoutWorkerZerosCpuIsRefusedAtOnce) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] { run_target(shm_.name, true, to_parent, to_child); });
  auto s = Session::join(node_options(shm_.name), {});
  ASSERT_EQ(to_parent.recv(), 'J');
  std::string why;
  auto t0 = Clock::now();
  EXPECT_EQ(s->drom().set_process_mask(child, {}, 5000, why), DromMailbox::kUnackable);
  EXPECT_NE(why.find("worker 0"), std::string::npos) << why;
  EXPECT_EQ(s->drom().set_process_mask(child, {1}, 5000, why), DromMailbox::kUnackable);
  EXPECT_NE(why.find("CPU 0"), std::string::npos) << why;
  EXPECT_LT(ms_since(t0), 1000.0) << "refused up front, not after the timeout";
  EXPECT_EQ(s->table().owned_by(child), (std::vector<int>{0, 1}));  // nothing applied
  t0 = Clock::now();
  EXPECT_EQ(s->drom().set_process_mask(child, {0}, 5000, why), 0) << why;
  EXPECT_LT(ms_since(t0), 2500.0) << "acknowledged well before the 5 s timeout";
  EXPECT_EQ(s->table().owned_by(child), (std::vector<int>{0}));
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
}

// A request that stays pending (CPU 0's worker never parks: no home CPU is
// known, as for a worker stuck in a long task) times out; the next request
// replaces it and is acknowledged on its own instead of waiting forever.
TEST_F(DromHostile, PendingRequestDoesNotHoldUpTheNext) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] { run_target(shm_.name, false, to_parent, to_child); });
  auto s = Session::join(node_options(shm_.name), {});
  ASSERT_EQ(to_parent.recv(), 'J');
  std::string why;
  EXPECT_EQ(s->drom().set_process_mask(child, {1}, 300, why), 1) << "CPU 0's worker never parks";
  const auto t0 = Clock::now();
  EXPECT_EQ(s->drom().set_process_mask(child, {0, 1}, 5000, why), 0) << why;
  EXPECT_LT(ms_since(t0), 2500.0) << "acknowledged well before the 5 s timeout";
  EXPECT_EQ(s->table().owned_by(child), (std::vector<int>{0, 1}));
  // And the process still follows later masks.
  EXPECT_EQ(s->drom().set_process_mask(child, {0}, 5000, why), 0) << why;
  EXPECT_EQ(s->table().owned_by(child), (std::vector<int>{0}));
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
}

// The parent lends CPU 0; the child borrows it and is stopped (SIGSTOP)
// before it can give it back. The parent's reclaim ends at the deadline:
// the CPU is revoked and counted.
pid_t stopped_borrower(const std::string& shm, Session& s, Channel& to_child, Channel& to_parent) {
  EXPECT_EQ(s.loans().lend_cpu(0), Outcome::Done);
  const pid_t child = fork_child([&] {
    auto c = Session::join(node_options(shm), {});
    std::vector<int> got;
    c->acquire(1, got);
    CHILD_CHECK(got == std::vector<int>{0});
    to_parent.send('B');
    CHILD_CHECK(to_child.recv(60000) == 'C');  // stopped meanwhile
    // Its next task boundary: the CPU is not its own any more; it gives up
    // without running there and without touching the owner's word.
    CHILD_CHECK(c->must_return(0));
    CHILD_CHECK(!c->usable(0));
    CHILD_CHECK(c->loans().held_cpus().empty());
    CHILD_CHECK(c->table().load(0).guest == 0);
    to_parent.send('R');
  });
  EXPECT_EQ(to_parent.recv(), 'B');
  EXPECT_EQ(::kill(child, SIGSTOP), 0);
  return child;
}

TEST_F(DromHostile, StoppedBorrowerLosesAReclaimedCpu) {
  Channel to_child, to_parent;
  auto s = Session::join(node_options(shm_.name, 100), {0});
  const pid_t child = stopped_borrower(shm_.name, *s, to_child, to_parent);
  EXPECT_EQ(s->loans().reclaim_cpu(0), Outcome::Pending);
  EXPECT_TRUE(s->wait_usable(0, 5000)) << "the reclaim has a deadline";
  EXPECT_EQ(s->table().load(0), (CpuWord{CpuState::Busy, ::getpid(), 0}));
  std::ostringstream shown;
  print_table(s->table(), shown);
  EXPECT_NE(shown.str().find("revoked 1"), std::string::npos) << shown.str();
  ASSERT_EQ(::kill(child, SIGCONT), 0);
  to_child.send('C');
  EXPECT_EQ(to_parent.recv(), 'R');
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(s->table().load(0), (CpuWord{CpuState::Busy, ::getpid(), 0}));
}

// Timing: back within the deadline (100 ms) plus slack for the 50 ms check.
TEST_F(DromHostile, RevokeComesWithinTheDeadline) {
  Channel to_child, to_parent;
  auto s = Session::join(node_options(shm_.name, 100), {0});
  const pid_t child = stopped_borrower(shm_.name, *s, to_child, to_parent);
  const auto t0 = Clock::now();
  EXPECT_EQ(s->loans().reclaim_cpu(0), Outcome::Pending);
  EXPECT_TRUE(s->wait_usable(0, 5000));
  const double ms = ms_since(t0);
  std::printf("[ revoke ] CPU back %.1f ms after the claim (deadline 100 ms)\n", ms);
  EXPECT_GE(ms, 90.0) << "not before the deadline";
  EXPECT_LT(ms, 400.0);
  ::kill(child, SIGCONT);
  to_child.send('C');
  EXPECT_EQ(to_parent.recv(), 'R');
  EXPECT_EQ(wait_child(child), 0);
}

}  // namespace
