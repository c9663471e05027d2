// Several processes lend, reclaim, borrow, return and "run" on two CPUs at
// random, one of them killed with SIGKILL half-way. Invariants: at most one
// process runs on a CPU at any time, only owners reclaim or lend, and at the
// end every owner has its CPUs back and the table is empty (nothing lost).
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "lending_session.hpp"
#include "lending_support.hpp"
#include "os_support.hpp"

namespace {

using namespace joule::lending;
using namespace lending_test;

struct Shared {
  std::atomic<pid_t> runner[2];  // who "runs" on each CPU now (pid), 0 if nobody
  std::atomic<int> overlaps;
  std::atomic<int> forbidden;  // a verb succeeded for an actor not entitled to it
  std::atomic<long> runs;
  std::atomic<int> joined;     // children that joined the table
  std::atomic<long> steps[5];  // verbs each child has performed
  std::atomic<int> go;
};

Shared* make_shared() {
  void* p =
      ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  return new (p) Shared();
}

// Claims the CPU's occupancy slot; a dead previous runner counts as gone.
bool enter_cpu(Shared& sh, int cpu, pid_t me) {
  pid_t expect = 0;
  if (sh.runner[cpu].compare_exchange_strong(expect, me)) return true;
  if (!pid_exists(expect) && sh.runner[cpu].compare_exchange_strong(expect, me)) return true;
  sh.overlaps.fetch_add(1);
  return false;
}

void run_process(Shared& sh, const std::string& shm, int index, std::vector<int> owned,
                 unsigned seed, double seconds) {
  LendingOptions o;
  o.shm = shm;
  auto s = Session::join(o, owned);
  const pid_t me = ::getpid();
  sh.joined.fetch_add(1);
  CHILD_CHECK(eventually([&] { return sh.go.load() != 0; }));
  std::mt19937 rng(seed);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    const int c = int(rng() % 2);
    // Nobody else can make us owner or guest of c: these stay true or false.
    const bool mine = s->table().load(c).owner == me;
    const bool was_guest = s->table().load(c).guest == me;
    Outcome out = Outcome::Illegal;
    std::vector<int> got;
    sh.steps[index].fetch_add(1);
    switch (rng() % 9) {
      case 0:
      case 1:
        if (s->usable(c) && enter_cpu(sh, c, me)) {  // a task runs on c
          sh.runs.fetch_add(1);
          for (int i = 0, n = int(rng() % 2000); i < n; ++i) {
            asm volatile("" ::: "memory");
          }
          sh.runner[c].store(0);
        }
        break;
      case 2:
        out = s->loans().lend_cpu(c);  // a guest's lend is a return
        if (!mine && !was_guest && out == Outcome::Done) sh.forbidden.fetch_add(1);
        break;
      case 3:
        out = s->loans().reclaim_cpu(c);
        if (!mine && (out == Outcome::Done || out == Outcome::Pending)) sh.forbidden.fetch_add(1);
        break;
      case 4:
        s->acquire(1 + int(rng() % 2), got);
        break;
      case 5:
        s->must_return(c);
        break;
      case 6:
        s->loans().return_cpu(c);
        break;
      case 7:
        out = s->loans().borrow_cpu(c);
        if (mine && out == Outcome::Done) sh.forbidden.fetch_add(1);
        break;
      case 8:
        s->release_idle(c);
        break;
    }
  }
  // Quiesce: give back what we borrowed, take back what we own.
  s->loans().return_all();
  s->loans().reclaim_all(nullptr);
  for (int c : owned) CHILD_CHECK(s->wait_usable(c, 10000));
  for (int c : owned) CHILD_CHECK(s->table().load(c) == (CpuWord{CpuState::Busy, me, 0}));
}

TEST(LendingStress, RandomVerbsKeepTheInvariants) {
  if (online_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  ShmGuard g(unique_shm("stress"));
  Shared* sh = make_shared();
  const std::vector<std::vector<int>> owned = {{0}, {1}, {}, {}, {}};
  std::vector<pid_t> kids;
  for (std::size_t i = 0; i < owned.size(); ++i)
    kids.push_back(fork_child([&, i] {
      run_process(*sh, g.name, int(i), owned[i], unsigned(1000 + i), i == 4 ? 30.0 : 1.0);
    }));
  EXPECT_TRUE(eventually([&] { return sh->joined.load() == int(kids.size()); }))
      << "not every child joined the table";
  sh->go.store(1);
  // Kill child 4 in the middle of its run: once it and the others are busy.
  EXPECT_TRUE(eventually([&] {
    for (const auto& n : sh->steps)
      if (n.load() < 500) return false;
    return true;
  })) << "the children made no progress";
  ::kill(kids[4], SIGKILL);  // dies holding whatever it had
  EXPECT_EQ(wait_child(kids[4]), -SIGKILL);
  for (std::size_t i = 0; i + 1 < kids.size(); ++i) EXPECT_EQ(wait_child(kids[i]), 0) << i;
  EXPECT_EQ(sh->overlaps.load(), 0);
  EXPECT_EQ(sh->forbidden.load(), 0);
  EXPECT_GT(sh->runs.load(), 100);
  std::printf("[ stress ] %ld runs\n", sh->runs.load());
  // The killed process is cleaned by whoever attaches next; then all is free.
  auto t = CpuTable::attach_existing(g.name);
  if (t) {  // the live ones left it to the dead one: clean and check
    t->registry().reap_dead();
    for (int c = 0; c < t->ncpus(); ++c) EXPECT_EQ(t->load(c).state, CpuState::Disabled) << c;
  }
  ::munmap(sh, sizeof(Shared));
}

}  // namespace
