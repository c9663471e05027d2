// A team's members as joule tasks: spawning them, gathering them, and the
// team's lifetime. Members 1..n-1 are queued joule tasks; each takes the
// next id as it starts. Nobody runs the body (where any wait helps with
// ready tasks) before the team is gathered, or a waiter could start a
// still-queued member of its own team on top of its stack and deadlock in
// the barrier. The waits here sleep on a futex, never run tasks; a futex
// wake is a system call, so it is made only when a waiter said it sleeps
// (members of a busy process spin and find the word set).
//
// A region started inside a task (on a worker, or in an explicit task) may
// find every worker busy, each perhaps a master waiting for its own team:
// after kSealAfter its master seals the team at the members that started.
// Members that start after the seal return at once.
//
// The region ends with a join, not a barrier: each member waits for its own
// explicit tasks and counts itself out; the master waits for the count.
// Nobody needs the others after the body, so a member's worker is free at
// once. The master then keeps the team for its next region (thread-local),
// so a region start allocates nothing.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "affinity.hpp"
#include "joule/team.h"
#include "ompt.hpp"
#include "task.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

constexpr int kSealed = 1 << 30;
constexpr auto kSealAfter = std::chrono::milliseconds(10);
constexpr int kSpins = 2000;
constexpr int kOversubscribedSpins = 16;

// Pauses before a wait sleeps: OMP_WAIT_POLICY=active spins long; with more
// workers than CPUs the awaited thread may need this CPU, so spin little
// (libgomp does the same: GOMP_SPINCOUNT in the libgomp manual).
int spin_limit() {
  const Icv& v = icv();
  if (v.wait_active) return 20 * kSpins;
  return v.oversubscribed ? kOversubscribedSpins : kSpins;
}

void futex_wait(std::atomic<int>& word, int seen, long timeout_ns) {
  timespec ts{0, timeout_ns};
  syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAIT_PRIVATE, seen, &ts, nullptr, 0);
}

void futex_wake_all(std::atomic<int>& word) {
  syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAKE_PRIVATE, 1 << 30, nullptr, nullptr,
          0);
}

// This thread's last team, kept for its next region (freed at thread exit).
struct Spare {
  Team* team = nullptr;
  ~Spare() { delete team; }
};
thread_local Spare t_spare;

// The last reference (the master's, or a late member task's) frees the team.
void drop_refs(Team* t, int n) {
  if (t->refs.fetch_sub(n, std::memory_order_acq_rel) != n) return;
  if (t_spare.team) {
    delete t;
  } else {
    t_spare.team = t;
  }
}

// Until the team is gathered: its size is final and every member started.
void wait_gathered(Team* t) {
  for (int spin = 0;; ++spin) {
    int g = t->gathered.load(std::memory_order_acquire);
    if (g == 1) return;
    if (spin < spin_limit()) {
      __builtin_ia32_pause();
    } else if (g == 2 || t->gathered.compare_exchange_strong(g, 2, std::memory_order_acq_rel)) {
      futex_wait(t->gathered, 2, 1000000);
    }
  }
}

// Sets the team gathered; wakes the waiters that said they sleep.
void set_gathered(Team* t) {
  if (t->gathered.exchange(1, std::memory_order_acq_rel) == 2) futex_wake_all(t->gathered);
}

void member_task(void* args) {
  Team* t = *static_cast<Team**>(args);
  const int claim = t->claims.fetch_add(1, std::memory_order_acq_rel);
  if (claim & kSealed) return drop_refs(t, 1);  // the team went ahead without it
  joule_release_private();  // this thread now blocks in the team: others take its queue
  if (t->sealable) {
    futex_wake_all(t->claims);  // the master decides (rare: regions inside tasks)
  } else if (claim + 1 == t->n - 1) {
    set_gathered(t);  // the last one in
  }
  wait_gathered(t);
  run_member(t, claim + 1);
  // The last touch of the team: the master may recycle it at once.
  // The master is the only one waiting for it (finish_team). Read before the
  // increment: afterwards the team may be recycled.
  joule_wait_slot_t* master = t->sleepers[0].load(std::memory_order_seq_cst);
  t->finished.fetch_add(1, std::memory_order_seq_cst);
  joule_wake_slot(master);
}

// Inside a task, every worker may be taken; with lending, a member queued on a
// guest worker waits for a CPU its owner may reclaim before the member starts
// (the guest parks; the owner may itself wait on us in MPI). In both cases
// the team must not wait forever. Neither may a host team's region, whose
// members other teams' regions may hold (teams.cpp).
bool may_seal() {
  const Team* outer = self().team;
  return self().in_task || joule_worker_id() > 0 || joule_lending_active() == 1 ||
         (outer && outer->share > 0);
}

}  // namespace

void run_member(Team* t, int id) {
  ThreadState& s = self();
  const ThreadState saved = s;
  s = ThreadState{};
  s.team = t;
  s.id = id;
  s.red = t->red;
  reset_throttle();
  if (id < t->sleepers_size)
    t->sleepers[id].store(joule_current_wait_slot(), std::memory_order_seq_cst);
  if (affinity().display) display_affinity_on_entry(t->show_affinity);
  seat_take(t, id);
  ompt::TaskRecord rec, *outer = nullptr;
  if (ompt::on()) outer = ompt::implicit_begin(&rec, t, id);
  t->fn(t->data);
  {
    SeatAway away;
    if (ompt::on()) ompt::sync_begin(ompt::kBarrierImplicitParallel);
    joule_taskwait();  // its explicit tasks (and theirs) end inside the region
    if (ompt::on()) ompt::sync_end(ompt::kBarrierImplicitParallel);
  }
  if (outer) ompt::implicit_end(&rec, outer);
  seat_leave();
  s = saved;
}

Team* new_team() {
  Team* t = t_spare.team;
  if (!t) return new Team;
  t_spare.team = nullptr;
  reset_team(t);
  return t;
}

void reset_team(Team* t) {
  t->claims.store(0, std::memory_order_relaxed);
  t->gathered.store(1, std::memory_order_relaxed);
  t->refs.store(1, std::memory_order_relaxed);
  t->finished.store(0, std::memory_order_relaxed);
  t->arrived.store(0, std::memory_order_relaxed);
  for (WorkShare& w : t->slots) {
    w.gen.store(0, std::memory_order_relaxed);
    w.left.store(0, std::memory_order_relaxed);
    ws_free_scratch(w);
  }
  t->saved = nullptr;
}

// Room for every member's wait slot, reused by the next region.
void size_sleepers(Team* t) {
  if (t->sleepers_size < t->n) {
    delete[] t->sleepers;
    t->sleepers = new std::atomic<joule_wait_slot_t*>[std::size_t(t->n)];
    t->sleepers_size = t->n;
  }
  for (int i = 0; i < t->n; ++i) t->sleepers[i].store(nullptr, std::memory_order_relaxed);
  t->sleepers[0].store(joule_current_wait_slot(), std::memory_order_relaxed);
}

void spawn_members(Team* t) {
  size_sleepers(t);
  t->refs.store(t->n, std::memory_order_relaxed);
  t->sealable = may_seal();
  t->gathered.store(0, std::memory_order_relaxed);
  joule_task_options_t opts = JOULE_TASK_OPTIONS_INIT;
  opts.label = "omp team member";
  joule_task_t* tasks[64];
  for (int first = 1; first < t->n; first += 64) {
    const int count = std::min(64, t->n - first);
    for (int i = 0; i < count; ++i) {
      void* args = nullptr;
      if (joule_task_create(member_task, sizeof(Team*), &opts, &tasks[i], &args) != JOULE_OK)
        unsupported("GOMP_parallel (cannot create a team member task)");
      *static_cast<Team**>(args) = t;
    }
    joule_team_submit(tasks, count);
  }
}

// Waits (without running tasks) until every member has started; a sealable
// team is sealed at those that did after kSealAfter, and let go.
void gather_members(Team* t) {
  if (!t->sealable) return wait_gathered(t);
  const auto deadline = std::chrono::steady_clock::now() + kSealAfter;
  for (int spin = 0;; ++spin) {
    int c = t->claims.load(std::memory_order_acquire);
    if (c == t->n - 1) break;
    if (spin < spin_limit()) {
      __builtin_ia32_pause();
    } else if (std::chrono::steady_clock::now() < deadline) {
      futex_wait(t->claims, c, 1000000);
    } else if (t->claims.compare_exchange_strong(c, c | kSealed, std::memory_order_acq_rel)) {
      t->n = c + 1;
      if (t->n == 1) t->active_level -= 1;
      break;
    }
  }
  set_gathered(t);
}

void finish_team(Team* t) {
  const int n = t->n;
  if (n > 1) team_wait(t, [&] { return t->finished.load(std::memory_order_acquire) == n - 1; });
  if (ompt::on()) ompt::parallel_end(t);  // the team is still the region's
  drop_refs(t, n);                        // the master's and the started members'
}

// The waker made the awaited condition true with a seq_cst store; a member
// publishes its slot (seq_cst) before it first waits, and re-checks the
// condition after it says it sleeps: one of the two sees the other.
void wake_team(Team* t) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const int me = self().team == t ? self().id : -1;
  const int n = std::min(t->n, t->sleepers_size);
  for (int i = 0; i < n; ++i)
    if (i != me) joule_wake_slot(t->sleepers[i].load(std::memory_order_seq_cst));
}

void wake_master(Team* t) {
  if (t->sleepers_size > 0) joule_wake_slot(t->sleepers[0].load(std::memory_order_seq_cst));
}

void wait_spin_then_help(Team* /*t*/, bool (*done)(void*), void* arg) {
  const int spins = spin_limit();
  for (int i = 0; i < spins; ++i) {
    if (done(arg)) return;
    __builtin_ia32_pause();
  }
  SeatAway away;  // it may run tasks of the team meanwhile
  struct Waiting {
    bool (*done)(void*);
    void* arg;
  } w{done, arg};
  joule_wait_until(
      [](void* p) { return int(static_cast<Waiting*>(p)->done(static_cast<Waiting*>(p)->arg)); },
      &w);
}

}  // namespace joule::omp
