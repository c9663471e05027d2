// Two processes with one CPU each, through the lending session that the
// runtime's CpuManager uses: the idle one lends, the other borrows and gives
// the CPU back when its owner claims it; SIGKILL recovery; blocking calls.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "lending_session.hpp"
#include "lending_support.hpp"
#include "os_support.hpp"

namespace {

using namespace joule::lending;
using namespace lending_test;
using Clock = std::chrono::steady_clock;

LendingOptions node_options(const std::string& shm, const char* policy = "auto") {
  LendingOptions o;
  o.mode = "node";
  o.policy = policy;
  o.shm = shm;
  return o;
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (online_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  }
  AffinityGuard affinity_;
  ShmGuard shm_{unique_shm("session")};
};

// The child owns CPU 1 and lends it; the parent (CPU 0) borrows it for ready
// work; the child claims it back; the parent returns it at its next task
// boundary (must_return) and the child's wait ends.
TEST_F(SessionTest, IdleOneLendsOtherBorrowsAndReturnsWhenClaimed) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    pin_to(1);
    auto s = Session::join(node_options(shm_.name), {1});
    CHILD_CHECK(s->release_idle(1));  // idle worker: lends
    to_parent.send('L');
    CHILD_CHECK(to_child.recv() == 'B');
    std::vector<int> got;
    s->acquire(1, got);  // work again: reclaim (pending, the parent runs there)
    CHILD_CHECK(got.empty());
    CHILD_CHECK(s->table().load(1).state == CpuState::Claimed);
    CHILD_CHECK(!s->usable(1));
    to_parent.send('C');
    CHILD_CHECK(s->wait_usable(1, 10000));
    CHILD_CHECK(s->table().load(1).state == CpuState::Busy);
    to_parent.send('R');
    CHILD_CHECK(to_child.recv() == 'Q');
  });
  auto s = Session::join(node_options(shm_.name), {0});
  ASSERT_EQ(to_parent.recv(), 'L');
  std::vector<int> got;
  s->acquire(4, got);  // 4 ready tasks, one idle CPU on the node
  ASSERT_EQ(got, std::vector<int>{1});
  EXPECT_EQ(s->table().load(1), (CpuWord{CpuState::Borrowed, child, ::getpid()}));
  EXPECT_FALSE(s->must_return(1));  // not claimed yet: keep running
  EXPECT_TRUE(s->usable(1));
  to_child.send('B');
  ASSERT_EQ(to_parent.recv(), 'C');
  EXPECT_TRUE(s->must_return(1));  // claimed: returned at the task boundary
  EXPECT_FALSE(s->usable(1));
  ASSERT_EQ(to_parent.recv(), 'R');
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(s->table().load(1).state, CpuState::Disabled);  // its owner left
}

// The guest is killed while it runs on the owner's claimed CPU: the owner's
// wait ends once the dead guest is noticed (within ~50 ms of a lending call).
TEST_F(SessionTest, SigkilledGuestGivesTheCpuBack) {
  Channel to_parent;
  auto s = Session::join(node_options(shm_.name), {0});
  ASSERT_EQ(s->loans().lend_cpu(0), Outcome::Done);
  const pid_t child = fork_child([&] {
    auto c = Session::join(node_options(shm_.name), {});
    std::vector<int> got;
    c->acquire(1, got);
    CHILD_CHECK(got == std::vector<int>{0});
    to_parent.send('B');
    for (;;) ::pause();  // holds CPU 0 until killed
  });
  ASSERT_EQ(to_parent.recv(), 'B');
  EXPECT_EQ(s->loans().reclaim_cpu(0), Outcome::Pending);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  EXPECT_EQ(wait_child(child), -SIGKILL);
  const auto t0 = Clock::now();
  EXPECT_TRUE(s->wait_usable(0, 5000));
  const auto ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::printf("[ recovery ] CPU back %.1f ms after the guest died\n", ms);
  EXPECT_LT(ms, 100.0) << "owners get their CPUs back within 100 ms (docs/lending.md)";
  EXPECT_EQ(s->table().load(0), (CpuWord{CpuState::Busy, ::getpid(), 0}));
}

// The owner is killed while we borrow its CPU: the CPU has no owner any
// more, and our next task boundary hands it back to nobody (Disabled).
TEST_F(SessionTest, SigkilledOwnerLeavesItsLentCpuToBeReturned) {
  Channel to_parent;
  const pid_t child = fork_child([&] {
    auto c = Session::join(node_options(shm_.name), {1});
    CHILD_CHECK(c->loans().lend_cpu(1) == Outcome::Done);
    to_parent.send('L');
    for (;;) ::pause();
  });
  ASSERT_EQ(to_parent.recv(), 'L');
  auto s = Session::join(node_options(shm_.name), {0});
  std::vector<int> got;
  s->acquire(1, got);
  ASSERT_EQ(got, std::vector<int>{1});
  ::kill(child, SIGKILL);
  wait_child(child);
  EXPECT_EQ(s->table().registry().reap_dead(), 1);
  EXPECT_EQ(s->table().load(1), (CpuWord{CpuState::Claimed, 0, ::getpid()}));
  EXPECT_TRUE(s->must_return(1));
  EXPECT_EQ(s->table().load(1).state, CpuState::Disabled);
}

// A blocking call lends the caller's CPU; the other process borrows it; on
// leaving, the caller waits until the guest gives it back.
TEST_F(SessionTest, BlockingCallLendsAndReclaimsTheCallersCpu) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    CHILD_CHECK(pin_to(1));
    auto c = Session::join(node_options(shm_.name), {1});
    c->enter_blocking(0);
    CHILD_CHECK(c->table().load(1).state == CpuState::Idle);
    to_parent.send('E');
    CHILD_CHECK(to_child.recv() == 'B');
    c->leave_blocking();  // returns only once the parent gave CPU 1 back
    CHILD_CHECK(c->table().load(1).state == CpuState::Busy);
    to_parent.send('D');
  });
  auto s = Session::join(node_options(shm_.name), {0});
  ASSERT_EQ(to_parent.recv(), 'E');
  std::vector<int> got;
  s->acquire(1, got);
  ASSERT_EQ(got, std::vector<int>{1});
  to_child.send('B');
  // The child is stuck in leave_blocking until our task boundary.
  ASSERT_TRUE(eventually([&] { return s->table().load(1).state == CpuState::Claimed; }));
  EXPECT_EQ(to_parent.recv(200), 0);
  EXPECT_TRUE(s->must_return(1));
  EXPECT_EQ(to_parent.recv(), 'D');
  EXPECT_EQ(wait_child(child), 0);
}

TEST_F(SessionTest, KeepOneCpuLendsNothingWithOneCpu) {
  ASSERT_TRUE(pin_to(0));
  auto s = Session::join(node_options(shm_.name), {0});
  s->enter_blocking(1);
  EXPECT_EQ(s->table().load(0).state, CpuState::Busy);
  s->leave_blocking();
  s->enter_blocking(0);
  EXPECT_EQ(s->table().load(0).state, CpuState::Idle);
  s->leave_blocking();
  EXPECT_EQ(s->table().load(0).state, CpuState::Busy);
}

// Policy mpi: idle workers keep their CPU (they sleep); a blocking call
// lends the sleeping workers' CPUs and takes them back after.
TEST_F(SessionTest, MpiPolicyLendsSleepingWorkersOnlyInBlockingCalls) {
  ASSERT_TRUE(pin_to(0));
  auto s = Session::join(node_options(shm_.name, "mpi"), {0, 1});
  EXPECT_FALSE(s->release_idle(1));  // sleeps holding CPU 1
  EXPECT_EQ(s->table().load(1).state, CpuState::Busy);
  s->enter_blocking(1);  // keep the caller's CPU 0
  EXPECT_EQ(s->table().load(0).state, CpuState::Busy);
  EXPECT_EQ(s->table().load(1).state, CpuState::Idle);
  EXPECT_TRUE(s->must_return(1));  // the worker woke for work: it must park
  EXPECT_FALSE(s->usable(1));
  s->leave_blocking();
  EXPECT_EQ(s->table().load(1).state, CpuState::Busy);
  EXPECT_TRUE(s->usable(1));
  EXPECT_FALSE(s->must_return(1));
}

TEST_F(SessionTest, HintsSingleParallelDisable) {
  ASSERT_TRUE(pin_to(0));
  auto s = Session::join(node_options(shm_.name), {0, 1});
  s->set_hint(Hint::Single);
  EXPECT_FALSE(s->must_return(0));  // the single CPU keeps running
  EXPECT_TRUE(s->must_return(1));   // the other is lent at its task boundary
  EXPECT_EQ(s->table().load(1).state, CpuState::Idle);
  std::vector<int> got;
  s->acquire(2, got);  // single: no growth
  EXPECT_TRUE(got.empty());
  s->set_hint(Hint::Enabled);  // parallel: own CPUs come back
  EXPECT_EQ(s->table().load(1).state, CpuState::Busy);
  s->set_hint(Hint::Disabled);
  EXPECT_FALSE(s->release_idle(1));  // disabled: idle workers just sleep
  EXPECT_EQ(s->table().load(1).state, CpuState::Busy);
  s->set_hint(Hint::Enabled);
  s->hints().set_max_parallelism(1);
  EXPECT_TRUE(s->must_return(1));  // two held, cap one
  EXPECT_EQ(s->loans().available_now(), 1);
}

// DROM: the parent changes the child's owned CPUs; the child sees the new
// mask at its next poll and acknowledges, so the request is synchronous.
TEST_F(SessionTest, DromMaskChangeIsObservedByPollMask) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    auto c = Session::join(node_options(shm_.name), {1});
    to_parent.send('J');
    std::vector<int> mask;
    for (int round = 0; round < 2; ++round) {
      CHILD_CHECK(eventually([&] { return c->drom().poll_mask(mask); }, 10000));
      CHILD_CHECK(mask == c->loans().owned_cpus());
      to_parent.send(char('0' + mask.size()));
    }
    CHILD_CHECK(to_child.recv() == 'Q');
  });
  auto s = Session::join(node_options(shm_.name), {0});
  ASSERT_EQ(to_parent.recv(), 'J');
  std::string why;
  // CPU 0 is ours: it cannot be given to the child.
  EXPECT_EQ(s->drom().set_process_mask(child, {0, 1}, 1000, why), DromMailbox::kPerm);
  EXPECT_NE(why.find("CPU 0 is owned by process"), std::string::npos) << why;
  EXPECT_EQ(s->drom().set_process_mask(::getpid() + 1000000, {1}, 1000, why), DromMailbox::kNoProc);
  // Give up CPU 0 ourselves, then hand both CPUs to the child.
  EXPECT_EQ(s->drom().set_process_mask(::getpid(), {}, 1000, why), 0) << why;
  EXPECT_TRUE(s->loans().owned_cpus().empty());
  EXPECT_EQ(s->drom().set_process_mask(child, {0, 1}, 10000, why), 0) << why;
  EXPECT_EQ(to_parent.recv(), '2');
  EXPECT_EQ(s->table().owned_by(child), (std::vector<int>{0, 1}));
  EXPECT_EQ(s->drom().set_process_mask(child, {1}, 10000, why), 0) << why;
  EXPECT_EQ(to_parent.recv(), '1');
  EXPECT_EQ(s->table().load(0).state, CpuState::Disabled);
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
}

// With a runtime attached, a CPU leaving the mask is disowned only once its
// worker has parked (wait_for_change); the requester waits for that.
TEST_F(SessionTest, DromRemovalWaitsForTheWorkerToPark) {
  Channel to_parent;
  const pid_t child = fork_child([&] {
    auto c = Session::join(node_options(shm_.name), {0, 1});
    c->drom().attach_runtime(true);
    to_parent.send('J');
    std::vector<int> mask;
    CHILD_CHECK(eventually([&] { return c->drom().poll_mask(mask); }, 10000));
    CHILD_CHECK(mask == std::vector<int>{0});
    CHILD_CHECK(c->table().load(1).state == CpuState::Busy);  // its worker still runs
    CHILD_CHECK(c->must_return(1));                           // next boundary: park
    CHILD_CHECK(!c->usable(1));
    to_parent.send('P');
    c->wait_for_change(1, 1000);  // the parked worker lets it go
    CHILD_CHECK(c->table().load(1).state == CpuState::Disabled);
  });
  auto s = Session::join(node_options(shm_.name), {});
  ASSERT_EQ(to_parent.recv(), 'J');
  std::string why;
  EXPECT_EQ(s->drom().set_process_mask(child, {0}, 10000, why), 0) << why;
  EXPECT_EQ(s->table().load(1).state, CpuState::Disabled);  // acknowledged after the park
  EXPECT_EQ(to_parent.recv(), 'P');
  EXPECT_EQ(wait_child(child), 0);
}

// A CPU borrowed for a worker that is still parked, then claimed by its
// owner before the worker woke: the parked worker hands it straight back
// (else the owner would wait for a boundary that never comes).
TEST_F(SessionTest, ParkedWorkerReturnsACpuClaimedBeforeItWoke) {
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    auto c = Session::join(node_options(shm_.name), {1});
    CHILD_CHECK(c->loans().lend_cpu(1) == Outcome::Done);
    to_parent.send('L');
    CHILD_CHECK(to_child.recv() == 'B');
    CHILD_CHECK(c->loans().reclaim_cpu(1) == Outcome::Pending);
    to_parent.send('C');
    CHILD_CHECK(c->wait_usable(1, 10000));
    CHILD_CHECK(to_child.recv() == 'Q');
  });
  auto s = Session::join(node_options(shm_.name), {0});
  ASSERT_EQ(to_parent.recv(), 'L');
  std::vector<int> got;
  s->acquire(1, got);
  ASSERT_EQ(got, std::vector<int>{1});
  to_child.send('B');
  ASSERT_EQ(to_parent.recv(), 'C');
  EXPECT_FALSE(s->usable(1));   // the parked worker's check: claimed
  s->wait_for_change(1, 1000);  // and its wait gives the CPU back
  EXPECT_EQ(s->table().load(1), (CpuWord{CpuState::Busy, child, 0}));
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
}

// Two workers on one CPU (JOULE_WORKERS above the CPUs): never lent, since
// one of them may be running while the other is idle.
TEST_F(SessionTest, SharedCpuIsNeverLent) {
  ASSERT_TRUE(pin_to(0));
  auto s = Session::join(node_options(shm_.name), {0, 1});
  s->never_lend(1);
  EXPECT_FALSE(s->release_idle(1));
  EXPECT_EQ(s->table().load(1).state, CpuState::Busy);
  EXPECT_TRUE(s->release_idle(0));  // an unshared CPU is lent as usual
}

}  // namespace
