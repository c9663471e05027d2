// The node barrier of the DLB API: its segment between 2 and 3 processes
// (rounds in lock-step, no segment left behind, 0600), a participant killed
// while the others wait (they get an error, not a hang), and DLB_Barrier /
// named barriers through the public calls.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "dlb_barrier_shm.hpp"
#include "joule/dlb.h"
#include "lending_support.hpp"

namespace {

using joule::dlb::BarrierSegment;
using namespace lending_test;
using Clock = std::chrono::steady_clock;

bool segment_exists(const std::string& name) {
  const int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

// Each of n processes runs `rounds` barriers; between them each bumps a
// shared counter, which must read exactly round*n after every barrier.
void lock_step(int n, int rounds) {
  const std::string table = unique_shm("bar");
  auto* counter = static_cast<std::atomic<int>*>(::mmap(nullptr, sizeof(std::atomic<int>),
                                                        PROT_READ | PROT_WRITE,
                                                        MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  new (counter) std::atomic<int>(0);
  Channel attached, go;
  std::vector<pid_t> kids;
  for (int k = 0; k < n; ++k)
    kids.push_back(fork_child([&] {
      BarrierSegment b(table, "lock-step");
      CHILD_CHECK(b.attach());
      attached.send('A');
      CHILD_CHECK(go.recv() == 'G');  // a barrier counts the processes attached when it runs
      for (int r = 1; r <= rounds; ++r) {
        counter->fetch_add(1);
        CHILD_CHECK(b.wait() == BarrierSegment::Result::Done);
        CHILD_CHECK(counter->load() == r * n);
        CHILD_CHECK(b.wait() == BarrierSegment::Result::Done);  // nobody runs ahead
      }
      CHILD_CHECK(b.detach());
    }));
  for (int k = 0; k < n; ++k) ASSERT_EQ(attached.recv(), 'A');
  for (int k = 0; k < n; ++k) go.send('G');
  for (pid_t p : kids) EXPECT_EQ(wait_child(p), 0);
  EXPECT_EQ(counter->load(), rounds * n);
  ::munmap(counter, sizeof(std::atomic<int>));
}

TEST(DlbBarrier, TwoProcessesInLockStep) { lock_step(2, 50); }
TEST(DlbBarrier, ThreeProcessesInLockStep) { lock_step(3, 30); }

TEST(DlbBarrier, SegmentIsPrivateAndRemovedByTheLastToLeave) {
  const std::string table = unique_shm("bar");
  std::string name;
  {
    BarrierSegment b(table, "x");
    name = b.shm_name();
    ASSERT_TRUE(b.attach());
    EXPECT_FALSE(b.attach());
    struct stat st {};
    const int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::fstat(fd, &st), 0);
    ::close(fd);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_TRUE(b.detach());
    EXPECT_FALSE(b.detach());
  }
  EXPECT_FALSE(segment_exists(name));
  // Alone in a barrier: it completes at once.
  BarrierSegment alone(table, "x");
  ASSERT_TRUE(alone.attach());
  EXPECT_EQ(alone.wait(), BarrierSegment::Result::Done);
}

TEST(DlbBarrier, NotAttachedIsRefused) {
  BarrierSegment b(unique_shm("bar"), "y");
  EXPECT_EQ(b.wait(), BarrierSegment::Result::NotAttached);
}

// Two survivors wait for a third that is SIGKILLed: both return Broken
// within a bounded time, and the next barrier works without the dead one.
TEST(DlbBarrier, KilledParticipantBreaksTheBarrierForTheOthers) {
  const std::string table = unique_shm("bar");
  Channel ready, waiting;
  const pid_t victim = fork_child([&] {
    BarrierSegment b(table, "k");
    CHILD_CHECK(b.attach());
    ready.send('V');
    ::pause();  // never reaches the barrier
  });
  ASSERT_EQ(ready.recv(), 'V');
  std::vector<pid_t> survivors;
  for (int k = 0; k < 2; ++k)
    survivors.push_back(fork_child([&] {
      BarrierSegment b(table, "k");
      CHILD_CHECK(b.attach());
      ready.send('S');
      CHILD_CHECK(waiting.recv() == 'W');  // both survivors attached
      const auto t0 = Clock::now();
      CHILD_CHECK(b.wait() == BarrierSegment::Result::Broken);
      CHILD_CHECK(Clock::now() - t0 < std::chrono::seconds(10));
      CHILD_CHECK(b.wait() == BarrierSegment::Result::Done);  // without the dead one
      CHILD_CHECK(b.detach());
    }));
  ASSERT_EQ(ready.recv(), 'S');
  ASSERT_EQ(ready.recv(), 'S');
  waiting.send('W');
  waiting.send('W');
  ::usleep(500 * 1000);  // both are inside wait() by now
  ::kill(victim, SIGKILL);
  EXPECT_EQ(wait_child(victim), -SIGKILL);
  for (pid_t p : survivors) EXPECT_EQ(wait_child(p), 0);
}

// Every participant died, one of them inside a barrier: the segment they
// left is reused by the next processes without counting the dead arrival.
TEST(DlbBarrier, SegmentLeftByDeadProcessesIsReusedCleanly) {
  const std::string table = unique_shm("bar");
  Channel ready, go;
  std::vector<pid_t> dead;
  struct Reaper {  // never leave a paused child behind, even on a failed ASSERT
    std::vector<pid_t>& pids;
    ~Reaper() {
      for (pid_t p : pids) ::kill(p, SIGKILL);
    }
  } reaper{dead};
  for (int k = 0; k < 2; ++k)
    dead.push_back(fork_child([&, k] {
      BarrierSegment b(table, "stale");
      CHILD_CHECK(b.attach());
      ready.send('A');
      if (k == 0) {
        CHILD_CHECK(go.recv() == 'B');  // the other attached: this one waits
        b.wait();
      }
      ::pause();
    }));
  ASSERT_EQ(ready.recv(), 'A');
  ASSERT_EQ(ready.recv(), 'A');
  go.send('B');
  ::usleep(200 * 1000);  // the first is inside wait()
  for (pid_t p : dead) {
    ::kill(p, SIGKILL);
    EXPECT_EQ(wait_child(p), -SIGKILL);
  }
  BarrierSegment mine(table, "stale");
  ASSERT_TRUE(mine.attach());
  Channel attached;
  const pid_t late = fork_child([&] {
    BarrierSegment b(table, "stale");
    CHILD_CHECK(b.attach());
    attached.send('A');
    ::usleep(300 * 1000);
    CHILD_CHECK(b.wait() == BarrierSegment::Result::Done);
    CHILD_CHECK(b.detach());
  });
  ASSERT_EQ(attached.recv(), 'A');
  const auto t0 = Clock::now();
  EXPECT_EQ(mine.wait(), BarrierSegment::Result::Done);
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(250));  // waited for the late one
  EXPECT_EQ(wait_child(late), 0);
  EXPECT_TRUE(mine.detach());
}

// A child that exits without leaving stays a zombie until its parent reaps
// it; the parent waiting in the barrier must not wait for it for ever.
TEST(DlbBarrier, UnreapedChildCountsAsDead) {
  const std::string table = unique_shm("bar");
  BarrierSegment mine(table, "z");
  ASSERT_TRUE(mine.attach());
  const pid_t child = fork_child([&] {
    BarrierSegment b(table, "z");
    CHILD_CHECK(b.attach());
    ::_exit(0);  // no detach
  });
  ::usleep(100 * 1000);
  const auto t0 = Clock::now();
  EXPECT_EQ(mine.wait(), BarrierSegment::Result::Broken);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(10));
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(mine.wait(), BarrierSegment::Result::Done);  // alone now
  EXPECT_TRUE(mine.detach());
}

class DlbBarrierApi : public NodeLendingTest {
 protected:
  DlbBarrierApi() : NodeLendingTest("barapi") {}
};

cpu_set_t mask_of(int cpu) {
  cpu_set_t m;
  CPU_ZERO(&m);
  CPU_SET(cpu, &m);
  return m;
}

// DLB_Init attaches the default barrier: two processes meet in it; a named
// barrier with LeWI on lends while waiting; detached, DLB_Barrier is refused.
TEST_F(DlbBarrierApi, DefaultAndNamedBarriersAcrossTwoProcesses) {
  EXPECT_EQ(DLB_Barrier(), DLB_ERR_NOINIT);
  EXPECT_EQ(DLB_BarrierNamedRegister("n", DLB_BARRIER_LEWI_OFF), nullptr);
  Channel inited, go;
  const pid_t child = fork_child([&] {
    cpu_set_t m = mask_of(1);
    CHILD_CHECK(DLB_Init(0, &m, nullptr) == DLB_SUCCESS);
    inited.send('I');
    CHILD_CHECK(go.recv() == 'G');
    CHILD_CHECK(DLB_Barrier() == DLB_SUCCESS);
    dlb_barrier_t* n = DLB_BarrierNamedRegister("phase", DLB_BARRIER_LEWI_ON);
    CHILD_CHECK(n != nullptr);
    inited.send('R');  // both registered before either waits
    CHILD_CHECK(go.recv() == 'H');
    CHILD_CHECK(DLB_BarrierNamed(n) == DLB_SUCCESS);
    CHILD_CHECK(DLB_Finalize() == DLB_SUCCESS);
  });
  ASSERT_EQ(inited.recv(), 'I');
  cpu_set_t m = mask_of(0);
  ASSERT_EQ(DLB_Init(0, &m, nullptr), DLB_SUCCESS);
  go.send('G');
  EXPECT_EQ(DLB_Barrier(), DLB_SUCCESS);
  dlb_barrier_t* n = DLB_BarrierNamedRegister("phase", DLB_BARRIER_LEWI_ON);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(DLB_BarrierNamedRegister("phase", DLB_BARRIER_LEWI_ON), n);
  EXPECT_EQ(DLB_BarrierNamedGet("phase", DLB_BARRIER_LEWI_ON), n);
  ASSERT_EQ(inited.recv(), 'R');
  go.send('H');
  EXPECT_EQ(DLB_BarrierNamed(n), DLB_SUCCESS);
  EXPECT_EQ(wait_child(child), 0);
  EXPECT_EQ(DLB_BarrierNamedDetach(n), DLB_SUCCESS);
  EXPECT_EQ(DLB_BarrierNamedDetach(n), DLB_NOUPDT);
  EXPECT_EQ(DLB_BarrierNamed(n), DLB_ERR_PERM);
  EXPECT_EQ(DLB_BarrierDetach(), DLB_SUCCESS);
  EXPECT_EQ(DLB_Barrier(), DLB_ERR_PERM);
  EXPECT_EQ(DLB_BarrierAttach(), DLB_SUCCESS);
  EXPECT_EQ(DLB_Barrier(), DLB_SUCCESS);  // alone now
  EXPECT_EQ(DLB_BarrierNamed(nullptr), DLB_ERR_NOENT);
  EXPECT_EQ(DLB_Finalize(), DLB_SUCCESS);
}

}  // namespace
