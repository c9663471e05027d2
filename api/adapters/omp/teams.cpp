// Host teams (OpenMP 5.2 §10.2, a teams construct not nested in target):
// GOMP_teams_reg runs a league of teams on joule's workers. Each team is a
// team of one, its initial thread, at level 0; a parallel region it starts
// is an outermost region of that team, its size bounded by region_cap().
//
// The league runs on up to min(N, W) runners: the calling thread and
// runner tasks on other workers. A runner takes the next team number until
// none is left, so the caller alone can run every team: a league never waits
// for a worker, whatever the others do. Runner r's parallel regions get a
// fixed share of the W workers (W / K, the first W % K one more), so that
// concurrent teams' regions fit on the workers together.
#include <algorithm>
#include <memory>
#include <vector>

#include "joule/team.h"
#include "task.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

struct League {
  void (*fn)(void*) = nullptr;
  void* data = nullptr;
  int num_teams = 1;
  int thread_limit = 0;
  int runners = 1;
  int workers = 1;
  std::unique_ptr<Team[]> teams;         // one per runner, reused for each team it runs
  alignas(64) std::atomic<int> next{0};  // the next team number to run
  alignas(64) std::atomic<int> done{0};  // teams whose body and tasks ended
  std::atomic<int> started{1};           // runner numbers handed out (0: the caller)
  std::atomic<int> refs{1};              // the caller's and the runner tasks'
  joule_wait_slot_t* waiter = nullptr;   // where the caller sleeps
};

void drop_ref(League* l) {
  if (l->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete l;
}

// Runner r: team after team until the league has none left.
void run_league(League* l, int r) {
  Team* t = &l->teams[std::size_t(r)];
  const int share = l->workers / l->runners + (r < l->workers % l->runners ? 1 : 0);
  init_league_team(t, l->num_teams, l->thread_limit, std::max(share, 1));
  for (;;) {
    const int k = l->next.fetch_add(1, std::memory_order_relaxed);
    if (k >= l->num_teams) break;
    t->team_num = k;
    ThreadState saved;
    enter_league_team(t, &saved);
    l->fn(l->data);
    leave_league_team(saved);
    if (l->done.fetch_add(1, std::memory_order_seq_cst) + 1 == l->num_teams)
      joule_wake_slot(l->waiter);
  }
}

void runner_task(void* args) {
  League* l = *static_cast<League**>(args);
  run_league(l, l->started.fetch_add(1, std::memory_order_relaxed));
  drop_ref(l);
}

// The caller's share as an undeferred joule task: the explicit tasks of its
// teams get a dependency domain of their own, as a region's master's do.
void caller_task(void* args) { run_league(*static_cast<League**>(args), 0); }

joule_task_t* make_task(void (*fn)(void*), League* l, bool undeferred) {
  joule_task_options_t opts = JOULE_TASK_OPTIONS_INIT;
  opts.if_ = undeferred ? 0 : 1;
  opts.label = "omp teams";
  joule_task_t* task = nullptr;
  void* args = nullptr;
  if (joule_task_create(fn, sizeof(League*), &opts, &task, &args) != JOULE_OK)
    unsupported("GOMP_teams_reg (cannot create a team's task)");
  *static_cast<League**>(args) = l;
  return task;
}

// The runner tasks go straight to other workers' queues, so that they start
// at once (joule_team_submit, as a region's members); the caller runs its share.
void run_runners(League* l) {
  std::vector<joule_task_t*> tasks;
  for (int r = 1; r < l->runners; ++r) tasks.push_back(make_task(runner_task, l, false));
  if (!tasks.empty()) joule_team_submit(tasks.data(), int(tasks.size()));
  joule_task_submit(make_task(caller_task, l, true));
}

// The league's size: num_teams, else nteams-var, else one team per worker.
int league_size(unsigned num_teams) {
  return num_teams ? int(std::min(num_teams, 1u << 30)) : default_num_teams();
}

int league_thread_limit(unsigned thread_limit) {
  if (thread_limit) return int(std::min(thread_limit, 1u << 30));
  return icv().teams_thread_limit;
}

// Runners: one per team up to the workers; a league started where the
// thread is not the initial thread (nonconforming) runs on the caller alone.
int league_runners(int num_teams, int workers) {
  const ThreadState& s = self();
  if (s.in_task || s.in_final || current_team()->active_level > 0) return 1;
  return std::max(1, std::min(num_teams, workers));
}

}  // namespace

int default_num_teams() {
  const int v = icv().nteams;
  return v > 0 ? v : std::max(joule_worker_count(), 1);
}

int region_cap(const Team* outer) {
  int cap = outer->thread_limit;
  if (outer->share > 0 && (cap == 0 || outer->share < cap)) cap = outer->share;
  return cap;
}

void init_league_team(Team* t, int num_teams, int thread_limit, int share) {
  t->n = 1;
  t->fn = nullptr;
  t->parent = nullptr;
  t->level = 0;
  t->active_level = 0;
  t->red = nullptr;
  t->num_teams = num_teams;
  t->thread_limit = thread_limit;
  t->share = share;
}

void enter_league_team(Team* t, ThreadState* saved) {
  ThreadState& s = self();
  *saved = s;
  reset_team(t);  // the previous team number's worksharing constructs
  seats_reset(t, 1);
  s = ThreadState{};
  s.team = t;
  reset_throttle();
  seat_take(t, 0);
}

void leave_league_team(const ThreadState& saved) {
  {
    SeatAway away;
    joule_taskwait();  // the team's explicit tasks end with it
  }
  seat_leave();
  self() = saved;
}

}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

// flags: GCC 12 passes 0 (reserved).
JOULE_EXPORT void GOMP_teams_reg(void (*fn)(void*), void* data, unsigned num_teams,
                                 unsigned thread_limit, unsigned /*flags*/) {
  ensure_init();
  auto* l = new League;
  l->fn = fn;
  l->data = data;
  l->num_teams = league_size(num_teams);
  l->workers = std::max(joule_worker_count(), 1);
  l->runners = league_runners(l->num_teams, l->workers);
  l->thread_limit = league_thread_limit(thread_limit);
  l->teams.reset(new Team[std::size_t(l->runners)]);
  l->waiter = joule_current_wait_slot();
  l->refs.store(l->runners, std::memory_order_relaxed);
  run_runners(l);
  team_wait(current_team(),
            [&] { return l->done.load(std::memory_order_acquire) == l->num_teams; });
  drop_ref(l);
}

}  // extern "C"
