// Malleable teams: with lending on and no OMP_NUM_THREADS, a parallel
// region's team is every CPU the process can run on at its start. Two
// processes with one CPU each (fork): the team grows onto the CPU the other
// process lends, and shrinks at the next region once its owner reclaims it.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <set>

#include "joule/joule.h"
#include "lending_support.hpp"

extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
int omp_get_num_threads(void);
}

namespace {

using namespace lending_test;

class MalleableTeam : public NodeLendingTest {
 protected:
  MalleableTeam() : NodeLendingTest("omp") {}
};

struct Region {
  std::atomic<int> size{0};
  std::atomic<int> members{0};
  std::atomic<unsigned> cpus{0};  // bit per CPU a member ran on
};

void member(void* p) {
  auto* r = static_cast<Region*>(p);
  r->size = omp_get_num_threads();
  r->members++;
  const int cpu = sched_getcpu();
  if (cpu >= 0 && cpu < 32) r->cpus |= 1u << cpu;
}

int state_of(int cpu) {
  joule_cpu_info_t i{};
  joule_get_cpu_info(cpu, &i);
  return i.state;
}

TEST_F(MalleableTeam, GrowsOntoALentCpuAndShrinksAfterTheReclaim) {
  ::unsetenv("OMP_NUM_THREADS");
  ::unsetenv("OMP_DYNAMIC");
  Channel to_child, to_parent;
  const pid_t child = fork_child([&] {
    CHILD_CHECK(pin_to(1));
    CHILD_CHECK(joule_lending_start(JOULE_LENDING_NODE) == JOULE_OK);
    CHILD_CHECK(joule_lend_cpu(1) == JOULE_OK);
    to_parent.send('L');
    CHILD_CHECK(to_child.recv() == 'R');
    CHILD_CHECK(joule_reclaim_cpu(1) == JOULE_OK);
    to_parent.send('R');
    CHILD_CHECK(to_child.recv() == 'Q');
    CHILD_CHECK(joule_lending_stop() == JOULE_OK);
  });
  ASSERT_TRUE(pin_to(0));
  ASSERT_EQ(to_parent.recv(), 'L');
  ASSERT_EQ(joule_init(), JOULE_OK) << joule_last_error();
  EXPECT_EQ(joule_num_workers(), 1);

  Region grown;
  GOMP_parallel(member, &grown, 0, 0);
  EXPECT_EQ(grown.size, 2);  // our CPU and the lent one
  EXPECT_EQ(grown.members, 2);
  EXPECT_EQ(grown.cpus, 0x3u);

  to_child.send('R');
  ASSERT_EQ(to_parent.recv(), 'R');
  EXPECT_TRUE(eventually([] { return state_of(1) == JOULE_CPU_BUSY; }));
  Region shrunk;
  GOMP_parallel(member, &shrunk, 0, 0);
  EXPECT_EQ(shrunk.size, 1);
  EXPECT_EQ(shrunk.cpus, 0x1u);

  EXPECT_EQ(joule_finalize(), JOULE_OK);
  to_child.send('Q');
  EXPECT_EQ(wait_child(child), 0);
}

}  // namespace
