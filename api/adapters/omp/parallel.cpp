// Parallel regions: the team's size and the region from start to join. The
// master runs member 0 on the calling thread (as an undeferred joule task,
// so that its explicit tasks get their own dependency domain); members
// 1..n-1 are joule tasks (members.cpp). They must all run concurrently
// (barriers), so the team never outgrows the workers that can run now.
#include <algorithm>

#include "affinity.hpp"
#include "joule/team.h"
#include "ompt.hpp"
#include "reduction.hpp"
#include "task.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

std::atomic<bool> g_nested_warned{false};

// Member 0 as an undeferred joule task on the master's thread.
void master_task(void* team) { run_member(static_cast<Team*>(team), 0); }

struct Undeferred {
  void (*body)(void*);
  void* arg;
};

void undeferred_body(void* args) {
  const auto* u = static_cast<Undeferred*>(args);
  u->body(u->arg);
}

// The CPUs the process could run on now (held, own idle, others' idle) when
// it takes part in lending; 0 otherwise.
int lendable_now() {
  if (!joule_lending_active()) return 0;  // (the query's failure path builds a message)
  int avail = 0;
  return joule_cpus_available_now(&avail) == JOULE_OK ? avail : 0;
}

// The size asked for: num_threads, else the nthreads ICV, else (malleable)
// every CPU the process could run on now; dynamic adjustment caps it there.
int wanted_size(unsigned requested) {
  const Icv& v = icv();
  int want = requested ? int(requested) : v.nthreads;
  if (want == 0 || v.dynamic) {
    const int avail = lendable_now();
    if (avail > 0)
      want = want ? std::min(want, avail) : avail;
    else if (want == 0)
      want = joule_num_workers();
  }
  return std::max(want, 1);
}

int team_size(unsigned requested, const Team* outer) {
  // A final task's descendants run inline: no team.
  if (t_state.in_final || joule_in_final()) return 1;
  if (outer->active_level >= std::max(icv().max_active_levels, 1)) {
    if (requested != 1 && outer->n > 1)
      warn_once(g_nested_warned,
                "libjoule-omp: nested parallel regions run serialised (team of 1)");
    return 1;
  }
  // Members block in barriers: each needs a worker of its own, running now
  // (with lending, lent CPUs come back and idle ones are borrowed here).
  // A target or teams region's thread_limit caps the team (OpenMP 5.2 §10.1.1).
  int want = wanted_size(requested);
  if (const int cap = region_cap(outer)) want = std::min(want, cap);
  int got = 1;
  if (joule_reserve_workers(want, &got) != JOULE_OK) got = 1;
  return std::max(got, 1);
}

}  // namespace

void run_undeferred(void (*body)(void*), void* arg, const char* label, const char* failure) {
  joule_task_options_t opts = JOULE_TASK_OPTIONS_INIT;
  opts.if_ = 0;
  opts.label = label;
  joule_task_t* task = nullptr;
  void* args = nullptr;
  if (joule_task_create(undeferred_body, sizeof(Undeferred), &opts, &task, &args) != JOULE_OK)
    unsupported(failure);
  *static_cast<Undeferred*>(args) = Undeferred{body, arg};
  joule_task_submit(task);
}

[[gnu::tls_model("initial-exec")]] constinit thread_local ThreadState t_state;

int max_team_size() {
  int want = wanted_size(0);
  if (const int cap = region_cap(current_team())) want = std::min(want, cap);
  return lendable_now() > 0 ? want : std::min(want, std::max(joule_worker_count(), 1));
}

Team* initial_team() {
  static thread_local Team initial;  // the initial (or a foreign) thread's team of one
  t_state.team = &initial;
  if (!initial.seats) {  // the thread is its thread number 0
    seats_reset(&initial, 1);
    seat_take(&initial, 0);
  }
  return &initial;
}

Team* begin_team(void (*fn)(void*), void* data, unsigned num_threads, std::uintptr_t* reductions) {
  ensure_init();
  Team* outer = current_team();
  Team* t = new_team();
  t->n = team_size(num_threads, outer);
  seats_reset(t, t->n);
  // Blocks for the size asked (a sealed team only shrinks); the region's
  // tasks see no outer reduction (OpenMP binds in_reduction to this team).
  t->red = reductions;
  if (reductions) {
    reductions[4] = 0;
    reduction_create(reductions, ReductionKind::kParallel, t, t->n);
  }
  t->fn = fn;
  t->data = data;
  t->parent = outer;
  t->parent_id = t_state.id;
  t->level = outer->level + 1;
  t->active_level = outer->active_level + (t->n > 1 ? 1 : 0);
  t->show_affinity = affinity().display && team_shows_affinity(t->n);
  t->team_num = outer->team_num;
  t->num_teams = outer->num_teams;
  t->thread_limit = outer->thread_limit;
  t->share = outer->share;
  if (ompt::on()) ompt::parallel_begin(t, num_threads);  // before a member can start
  if (t->n > 1) {
    spawn_members(t);
    gather_members(t);
  }
  return t;
}

int run_parallel(void (*fn)(void*), void* data, unsigned num_threads, std::uintptr_t* reductions) {
  Team* t = begin_team(fn, data, num_threads, reductions);
  const int n = t->n;
  if (n == 1)
    run_member(t, 0);
  else
    run_undeferred(master_task, t, "omp parallel",
                   "GOMP_parallel (cannot create the master's task)");
  finish_team(t);
  return n;
}

// GOMP_parallel_start / _end (GCC before 4.9): the master runs the body itself.
// The master has no joule task of its own there: the members are joule
// children of its current task, so a joule taskwait in a barrier would wait
// for them. It counts its explicit tasks as an inline task does
// (task_inline.cpp) instead.
void start_on_master(Team* t) {
  t->saved = new ThreadState(t_state);
  t_state = ThreadState{};
  t_state.team = t;
  t_state.inline_task = true;
  t_state.red = t->red;
  seat_take(t, 0);
  if (affinity().display) display_affinity_on_entry(t->show_affinity);
}

void finish_on_master() {
  Team* t = t_state.team;
  {
    SeatAway away;
    joule_taskwait();  // as run_member ends: the join in finish_team is the region's end
  }
  seat_leave();
  if (t_state.frame) frame_release(t_state.frame);
  t_state = *t->saved;
  delete t->saved;
  finish_team(t);
}

}  // namespace joule::omp
