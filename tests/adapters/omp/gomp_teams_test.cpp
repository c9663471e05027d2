// Host teams through the ABI, as GCC 12's code calls it: GOMP_teams_reg
// runs a league of teams on joule's workers (a parallel region inside each
// team forms a team of threads of its own), GOMP_teams4 runs a target
// region's teams one after the other on the calling thread. ctest runs the
// binary with 2 and with 32 workers (JOULE_WORKERS) on whatever CPUs the
// machine has, so that sanitizer builds cover the league.
#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "joule/joule.h"

extern "C" {
void GOMP_teams_reg(void (*fn)(void*), void* data, unsigned num_teams, unsigned thread_limit,
                    unsigned flags);
bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit,
                 bool first);
void GOMP_teams(unsigned num_teams, unsigned thread_limit);
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);
bool GOMP_loop_dynamic_start(long, long, long, long, long*, long*);
bool GOMP_loop_dynamic_next(long*, long*);
void GOMP_loop_end(void);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_level(void);
int omp_get_active_level(void);
int omp_in_parallel(void);
int omp_get_thread_limit(void);
int omp_get_team_num(void);
int omp_get_num_teams(void);
int omp_get_max_teams(void);
void omp_set_num_teams(int);
int omp_get_teams_thread_limit(void);
void omp_set_teams_thread_limit(int);
int omp_get_team_size(int);
}

namespace {

// joule starts once for the binary, with JOULE_WORKERS from the environment.
class JouleRuntime : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_EQ(joule_init(), JOULE_OK) << joule_last_error(); }
  void TearDown() override { joule_finalize(); }
};
const auto* const g_runtime = ::testing::AddGlobalTestEnvironment(new JouleRuntime);

int workers() { return joule_num_workers(); }

class GompTeams : public ::testing::TestWithParam<unsigned> {};

template <class F>
void teams(F f, unsigned n, unsigned thread_limit = 0) {
  GOMP_teams_reg([](void* d) { (*static_cast<F*>(d))(); }, &f, n, thread_limit, 0);
}

template <class F>
void parallel(F f, unsigned n = 0) {
  GOMP_parallel([](void* d) { (*static_cast<F*>(d))(); }, &f, n, 0);
}

// Each team number 0..n-1 runs once, as the initial thread of its team
// (level 0, not in parallel), and no more teams run at once than workers.
TEST_P(GompTeams, EveryTeamRunsOnceAtMostWorkersAtOnce) {
  const unsigned n = GetParam();
  std::vector<std::atomic<int>> ran(n);
  std::atomic<int> bad{0}, now{0}, most{0};
  teams(
      [&] {
        const int k = ++now;
        int m = most.load();
        while (k > m && !most.compare_exchange_weak(m, k)) {
        }
        const int team = omp_get_team_num();
        if (team < 0 || team >= int(n) || omp_get_num_teams() != int(n)) {
          bad++;
        } else {
          ran[std::size_t(team)]++;
        }
        if (omp_get_level() != 0 || omp_in_parallel() || omp_get_num_threads() != 1) bad++;
        sched_yield();
        now--;
      },
      n);
  EXPECT_EQ(bad, 0);
  for (unsigned i = 0; i < n; ++i) EXPECT_EQ(ran[i], 1) << "team " << i;
  EXPECT_LE(most, std::min(int(n), workers()));
  EXPECT_EQ(omp_get_num_teams(), 1);
  EXPECT_EQ(omp_get_team_num(), 0);
}

// min(n, workers) teams run at the same time: they all meet here (a league
// run one team after the other would never finish; the ctest TIMEOUT).
TEST_P(GompTeams, TeamsRunConcurrently) {
  const int n = std::min(int(GetParam()), workers());
  std::atomic<int> arrived{0};
  teams(
      [&] {
        arrived++;
        while (arrived.load() < n) sched_yield();
      },
      unsigned(n));
  EXPECT_EQ(arrived, n);
}

// A parallel region in each team is an outermost region of that team:
// level 1, the team's number inside, its own barrier and loop.
TEST_P(GompTeams, NestedParallelInEachTeam) {
  const unsigned n = GetParam();
  std::vector<std::atomic<long>> sums(n);
  std::vector<std::atomic<int>> sizes(n);
  std::atomic<int> bad{0};
  teams(
      [&] {
        const int team = omp_get_team_num();
        parallel([&] {
          if (omp_get_team_num() != team || omp_get_num_teams() != int(n)) bad++;
          if (omp_get_level() != 1 || omp_get_team_size(0) != 1) bad++;
          if (omp_get_num_threads() > 1 && omp_get_active_level() != 1) bad++;
          if (omp_get_thread_num() == 0) sizes[std::size_t(team)] = omp_get_num_threads();
          GOMP_barrier();
          long lo = 0, hi = 0, part = 0;
          for (bool more = GOMP_loop_dynamic_start(0, 1000, 1, 7, &lo, &hi); more;
               more = GOMP_loop_dynamic_next(&lo, &hi))
            for (long i = lo; i < hi; ++i) part += i;
          GOMP_loop_end();
          sums[std::size_t(team)] += part;
        });
      },
      n);
  EXPECT_EQ(bad, 0);
  // Concurrent teams share the workers: no team's region outgrows its share.
  const int running = std::min(int(n), workers());
  const int share = workers() / running + (workers() % running ? 1 : 0);
  for (unsigned i = 0; i < n; ++i) {
    EXPECT_EQ(sums[i], 999L * 1000 / 2) << "team " << i;
    EXPECT_GE(sizes[i], 1);
    EXPECT_LE(sizes[i], share) << "team " << i;
  }
}

// thread_limit caps each team's parallel regions and is what the team's
// threads read from omp_get_thread_limit; the ICV's value stays outside.
TEST_P(GompTeams, ThreadLimitCapsTheTeamsRegions) {
  const unsigned n = GetParam();
  const int outside = omp_get_thread_limit();
  std::atomic<int> bad{0};
  teams(
      [&] {
        if (omp_get_thread_limit() != 1) bad++;
        parallel([&] {
          if (omp_get_num_threads() != 1 || omp_get_thread_limit() != 1) bad++;
        });
      },
      n, 1);
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(omp_get_thread_limit(), outside);
}

INSTANTIATE_TEST_SUITE_P(League, GompTeams, ::testing::Values(1u, 2u, 8u, 32u),
                         [](const auto& p) { return "teams" + std::to_string(p.param); });

// A league started inside a parallel region (not conforming: teams must be
// outermost) still runs every team, on the thread that started it.
TEST(GompTeamsNested, LeagueInARegionRunsOnItsThread) {
  std::atomic<int> bad{0}, count{0};
  parallel(
      [&] {
        const int self = joule_worker_id();
        std::vector<int> seen(3);
        teams(
            [&] {
              seen[std::size_t(omp_get_team_num())]++;
              if (joule_worker_id() != self || omp_get_level() != 0) bad++;
              count++;
            },
            3);
        if (seen != std::vector<int>{1, 1, 1} || omp_get_level() != 1) bad++;
      },
      2);
  EXPECT_EQ(bad, 0);
  EXPECT_GE(count, 3);
}

// The nteams and teams-thread-limit ICVs: a league without num_teams takes
// nteams-var; without thread_limit, teams-thread-limit-var.
TEST(GompTeamsIcv, SetAndUsedByTheNextLeague) {
  omp_set_num_teams(5);
  omp_set_teams_thread_limit(3);
  EXPECT_EQ(omp_get_max_teams(), 5);
  EXPECT_EQ(omp_get_teams_thread_limit(), 3);
  std::atomic<int> count{0}, bad{0};
  teams(
      [&] {
        count++;
        if (omp_get_num_teams() != 5 || omp_get_thread_limit() != 3) bad++;
      },
      0);
  EXPECT_EQ(count, 5);
  EXPECT_EQ(bad, 0);
  omp_set_num_teams(0);  // not positive: back to the default, as libgomp
  omp_set_teams_thread_limit(0);
  EXPECT_GE(omp_get_max_teams(), 1);
  EXPECT_EQ(omp_get_teams_thread_limit(), 0);
  count = 0;
  teams([&] { count++; }, 0);
  EXPECT_EQ(count, omp_get_max_teams());
}

// GOMP_teams4 (a target region's teams on the host): the body runs once per
// team on the calling thread, 0..n-1 in order, with n the lower bound (1
// when 0), as libgomp's host fallback; then the thread is as before.
std::vector<int> teams4_sequence(unsigned lo, unsigned hi, unsigned limit, int* bad) {
  std::vector<int> seen;
  const int self = joule_worker_id();
  for (bool first = true; GOMP_teams4(lo, hi, limit, first); first = false) {
    seen.push_back(omp_get_team_num());
    if (omp_get_num_teams() != int(lo ? lo : 1) || omp_get_level() != 0) ++*bad;
    if (limit && omp_get_thread_limit() != int(limit)) ++*bad;
    if (joule_worker_id() != self) ++*bad;
  }
  return seen;
}

TEST(GompTeams4, RunsEachTeamInTurnOnTheCaller) {
  const int outside = omp_get_thread_limit();
  int bad = 0;
  EXPECT_EQ(teams4_sequence(2, 5, 7, &bad), (std::vector<int>{0, 1}));
  EXPECT_EQ(teams4_sequence(0, 0, 0, &bad), (std::vector<int>{0}));
  EXPECT_EQ(teams4_sequence(0, 3, 0, &bad), (std::vector<int>{0}));
  EXPECT_EQ(teams4_sequence(4, 4, 2, &bad), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(omp_get_num_teams(), 1);
  EXPECT_EQ(omp_get_team_num(), 0);
  EXPECT_EQ(omp_get_thread_limit(), outside);
}

// Inside a parallel region (a target region encountered by each thread):
// every thread runs its own sequence; a parallel region in a team body
// forms a team again.
TEST(GompTeams4, EachThreadOfARegionRunsItsOwnTeams) {
  std::atomic<int> bad{0}, inner{0};
  parallel([&] {
    int b = 0;
    if (teams4_sequence(3, 3, 0, &b) != std::vector<int>{0, 1, 2}) bad++;
    for (bool first = true; GOMP_teams4(2, 2, 0, first); first = false) {
      const int team = omp_get_team_num();
      parallel([&] {
        if (omp_get_team_num() != team || omp_get_level() != 1) bad++;
        inner++;
      });
    }
    if (omp_get_level() != 1) bad++;
    bad += b;
  });
  EXPECT_EQ(bad, 0);
  EXPECT_GE(inner, 2);
}

// GOMP_teams (GCC before 12, inside a target region): one team, as libgomp.
TEST(GompTeams4, OldEntryRunsOneTeam) {
  GOMP_teams(4, 0);
  EXPECT_EQ(omp_get_num_teams(), 1);
  EXPECT_EQ(omp_get_team_num(), 0);
}

}  // namespace
