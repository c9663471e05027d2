// Teams inside a target region run on the host, and the teams ICV routines.
//
// GCC 12 lowers `target teams` to `for (first = 1; GOMP_teams4(lo, hi,
// limit, first); first = 0) body;` inside the target region's function:
// the runtime says how often the body runs. As libgomp's host fallback does,
// the body runs once per team on the calling thread, team numbers 0..n-1 in
// order, with n the lower bound of num_teams (1 when the clause is absent).
// Each team is a team of one at level 0 for its body (a parallel region in
// it forms a team of joule's workers); the thread is what it was again when
// GOMP_teams4 returns false.
#include <algorithm>
#include <climits>

#include "joule/team.h"
#include "team.hpp"

namespace joule::omp {
namespace {

// One target teams construct being run by this thread; a target region in
// a parallel region in a team body may start another one.
struct TargetTeams {
  Team team;
  ThreadState saved;
  TargetTeams* outer = nullptr;
};

thread_local TargetTeams* t_target_teams = nullptr;

int clamp_count(unsigned v) { return int(std::min(v, unsigned(INT_MAX))); }

void first_team(unsigned lo, unsigned limit) {
  auto* f = new TargetTeams;
  f->outer = t_target_teams;
  t_target_teams = f;
  init_league_team(&f->team, lo ? clamp_count(lo) : 1, clamp_count(limit), 0);
  f->team.team_num = 0;
  enter_league_team(&f->team, &f->saved);
}

// After a team's body: the next team, or false once the last one ran.
bool next_team() {
  TargetTeams* f = t_target_teams;
  if (!f) return false;  // a call without first (no construct of ours runs)
  leave_league_team(f->saved);
  if (f->team.team_num + 1 < f->team.num_teams) {
    f->team.team_num += 1;
    enter_league_team(&f->team, &f->saved);
    return true;
  }
  t_target_teams = f->outer;
  delete f;
  return false;
}

}  // namespace
}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

// num_teams_high is an upper bound only: the host runs the lower one.
JOULE_EXPORT bool GOMP_teams4(unsigned num_teams_low, unsigned /*num_teams_high*/,
                              unsigned thread_limit, bool first) {
  ensure_init();
  if (!first) return next_team();
  first_team(num_teams_low, thread_limit);
  return true;
}

// GCC before 12, at the start of a target region's teams body, which runs
// once: one team, as libgomp. Nothing marks the body's end, so thread_limit
// would outlive it: it is not applied.
JOULE_EXPORT void GOMP_teams(unsigned /*num_teams*/, unsigned /*thread_limit*/) {}

JOULE_EXPORT int omp_get_num_teams(void) { return current_team()->num_teams; }
JOULE_EXPORT int omp_get_team_num(void) { return current_team()->team_num; }

// Not positive: back to the default (libgomp resets to its default too).
JOULE_EXPORT void omp_set_num_teams(int n) { icv().nteams = n > 0 ? n : 0; }
JOULE_EXPORT int omp_get_max_teams(void) { return default_num_teams(); }
JOULE_EXPORT void omp_set_teams_thread_limit(int n) { icv().teams_thread_limit = n > 0 ? n : 0; }
JOULE_EXPORT int omp_get_teams_thread_limit(void) { return icv().teams_thread_limit; }

}  // extern "C"
