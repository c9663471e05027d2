// libjoule-omp's model of an OpenMP team: the members (implicit tasks, run
// as joule tasks on distinct workers), the barrier, the worksharing slots and
// what each thread knows about where it is (its team, its id, its nesting).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "joule/team.h"

namespace joule::omp {

struct Reduction;

// Scheduling kinds, numbered as GCC passes them to GOMP_loop_start.
enum Sched : int { kRuntime = 0, kStatic = 1, kDynamic = 2, kGuided = 3, kAuto = 4 };

// One worksharing construct (loop, sections, single) of a team. A ring of
// them lets threads run nowait constructs ahead of each other; a slot is
// reused only once every member has left its previous construct.
struct WorkShare {
  std::atomic<std::int64_t> gen{0};  // construct number + 1; negative while set up
  std::atomic<int> left{0};          // members that have left it
  // Loops, in iteration numbers 0..count-1 (start + i * incr).
  int sched = kStatic;
  std::uint64_t base = 0, step = 1;  // iteration i is base + i * step (wrapping)
  std::uint64_t count = 0;
  std::uint64_t chunk = 0;
  alignas(64) std::atomic<std::uint64_t> next{0};  // dynamic, guided, sections, single
  alignas(64) std::atomic<std::uint64_t> ordered_next{0};
  std::atomic<void*> copy{nullptr};  // single copyprivate: the winner's data
  std::atomic<bool> copied{false};
  void* mem = nullptr;                   // team-shared scratch asked for by GOMP_loop_start
  std::atomic<void*> doacross{nullptr};  // a doacross loop's posts (doacross.cpp), malloc'ed
  Reduction* red = nullptr;              // reduction(task, ...) on it (reduction.hpp)
};

struct ThreadState;

// Frees a construct's scratch (mem, doacross) when its slot is reused (worksharing.cpp).
void ws_free_scratch(WorkShare& w);

// Who acts as one thread number of the team now (seats.cpp).
struct Seat {
  alignas(64) std::atomic<const void*> holder{nullptr};
};

struct Team {
  static constexpr int kSlots = 8;
  int n = 1;
  void (*fn)(void*) = nullptr;
  void* data = nullptr;
  Team* parent = nullptr;                  // enclosing team (for omp_get_ancestor_thread_num)
  int parent_id = 0;                       // the master's id in the parent team
  int level = 0;                           // omp_get_level inside this team
  int active_level = 0;                    // omp_get_active_level inside this team
  alignas(64) std::atomic<int> claims{0};  // members started (+ the sealed bit)
  std::atomic<int> gathered{1};  // 1 once every member started or the team was sealed; 2: not
                                 // yet, and a waiter sleeps on it (the gatherer must wake it)
  bool sealable = false;         // started inside a task: see members.cpp
  // The master plus every member task that has not started: a member that
  // starts after the seal drops its own; started members' refs go with the
  // master's at the join. The last one frees (or recycles) the team.
  std::atomic<int> refs{1};
  alignas(64) std::atomic<int> finished{0};  // started members that left the region
  alignas(64) std::atomic<int> arrived{0};   // barrier
  std::atomic<std::uint32_t> barrier_gen{0};
  WorkShare slots[kSlots];
  ThreadState* saved = nullptr;   // GOMP_parallel_start: the master's state outside
  std::uintptr_t* red = nullptr;  // GOMP_parallel_reductions: the region's descriptor
  // Where each member sleeps when it waits (joule_current_wait_slot), by id:
  // what a barrier or a construct's set-up wakes, member by member.
  std::atomic<joule_wait_slot_t*>* sleepers = nullptr;
  int sleepers_size = 0;
  Seat* seats = nullptr;  // one per thread number
  int seats_size = 0;
  std::atomic<int> red_active{0};  // task reductions registered in the team now
  bool show_affinity = false;      // OMP_DISPLAY_AFFINITY: every member prints its line
  // Teams (teams.cpp): the league this team's threads belong to, copied
  // into the teams of the parallel regions they start.
  int team_num = 0;
  int num_teams = 1;
  int thread_limit = 0;             // a teams or target region's thread_limit (or the ICV); 0: none
  int share = 0;                    // workers a host team may use at once; 0: not a host team
  std::uint64_t ompt_parallel = 0;  // an OMPT tool's parallel_data (ompt_events.cpp)
  void* ompt_outer = nullptr;       // the encountering task's region's (ompt_get_parallel_info)

  Team() = default;
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  ~Team() {
    for (WorkShare& w : slots) ws_free_scratch(w);
    delete[] sleepers;
    delete[] seats;
  }
};

struct InlineFrame;

// What the calling thread knows; saved and restored around every team or
// explicit task it runs, since a worker runs many.
struct ThreadState {
  Team* team = nullptr;
  int id = 0;
  bool in_task = false;          // running an explicit task
  bool in_final = false;         // in a final task: every task it creates is included
  bool inline_task = false;      // the innermost task runs inline, without a joule task
  InlineFrame* frame = nullptr;  // that task's deferred children (null: none yet)
  // The explicit task running now, for lock ownership (lock_owner.cpp; null:
  // the implicit task).
  const void* task_tag = nullptr;
  std::int64_t ws_count = 0;  // worksharing constructs entered in this team
  WorkShare* ws = nullptr;    // the current one
  std::uint64_t static_trip = 0;
  std::uint64_t ordered_iter = 0;  // next ordered iteration of this thread
  // The thread number of `team` this thread holds now (seats.cpp), or -1.
  int seat = -1;
  // Task reductions (reduction.hpp): the innermost descriptor the current
  // task sees; the worksharing construct's one and this member's descriptor.
  std::uintptr_t* red = nullptr;
  Reduction* ws_red = nullptr;
};

// Initial-exec: one %fs-relative load on every task and construct instead of
// a __tls_get_addr call (libjoule itself does the same for its context).
[[gnu::tls_model("initial-exec")]] extern constinit thread_local ThreadState t_state;

inline ThreadState& self() { return t_state; }
// The calling thread's team: a team of one outside parallel regions.
Team* initial_team();
inline Team* current_team() { return t_state.team ? t_state.team : initial_team(); }

// ---- team (parallel.cpp) ----
// Runs fn(data) as a team of the given size request (0: the ICV / dynamic);
// returns the team's size. reductions: GOMP_parallel_reductions' descriptor.
int run_parallel(void (*fn)(void*), void* data, unsigned num_threads,
                 std::uintptr_t* reductions = nullptr);
// The team a region without num_threads would get now, outside any region.
int max_team_size();
// Runs body(arg) now, on this thread, as an undeferred joule task (its
// explicit tasks get a dependency domain of their own); `failure` names
// the construct if the task cannot be made.
void run_undeferred(void (*body)(void*), void* arg, const char* label, const char* failure);
// The old split form: members start; the master runs the body, then finishes.
Team* begin_team(void (*fn)(void*), void* data, unsigned num_threads,
                 std::uintptr_t* reductions = nullptr);
void start_on_master(Team* t);
void finish_on_master();
// GOMP_parallel_{loop,sections}_*_start (entry_parallel.cpp): a team whose
// members run member(region); the master returns to run the body, and
// GOMP_parallel_end releases the region.
void start_legacy_region(void (*member)(void*), void* region, void (*release)(void*),
                         unsigned num_threads);
// Member `id` of `t` on this thread: the body, then its explicit tasks.
void run_member(Team* t, int id);

// ---- teams (teams.cpp, teams_target.cpp) ----
// The most threads a region started in `outer` may have: its thread_limit
// and its share of the workers (0: no bound).
int region_cap(const Team* outer);
// A team of one (the initial thread of a team of a league) before its first
// team number runs.
void init_league_team(Team* t, int num_teams, int thread_limit, int share);
// Runs the body of team t->team_num on the calling thread: the thread is
// t's initial thread meanwhile, and the body's explicit tasks end before it returns.
void enter_league_team(Team* t, ThreadState* saved);
void leave_league_team(const ThreadState& saved);
// A league without num_teams: nteams-var, else one team per worker.
int default_num_teams();

// ---- members (members.cpp) ----
// A recycled team's barrier, counts and worksharing slots as new.
void reset_team(Team* t);
// A team with no members yet: the calling thread's recycled one if it has it
// (a region start then allocates nothing), else a new one.
Team* new_team();
void spawn_members(Team* t);
// Until every member has started (or, inside a task, the team is sealed at
// those that did): t->n is final afterwards.
void gather_members(Team* t);
// The master's end (the join; there is no closing barrier): waits for the
// started members to leave, then frees or recycles the team.
void finish_team(Team* t);
// The members waiting in team_wait (all but the caller), or the master alone
// (a member leaving the region: only the master waits for that).
void wake_team(Team* t);
void wake_master(Team* t);
// Waits until done(): spins, then runs ready tasks, then sleeps until woken.
template <class Done>
void team_wait(Team* t, Done done);
void wait_spin_then_help(Team* t, bool (*done)(void*), void* arg);

// ---- seats (seats.cpp) ----
// At a region's start: n free seats, no task reductions.
void seats_reset(Team* t, int n);
// Holds seat k of t (waits while another thread holds it).
void seat_take(Team* t, int k);
// Holds any free seat of t, `prefer` first; returns it.
int seat_borrow(Team* t, int prefer);
// Frees the calling thread's seat.
void seat_leave();
// Around a wait that may run other tasks: the seat is left for the wait
// (only while the team has task reductions) and taken back after it; so
// are the seats that enclosing SeatKept scopes of this thread keep.
class SeatAway {
 public:
  SeatAway();
  ~SeatAway();
  SeatAway(const SeatAway&) = delete;
  SeatAway& operator=(const SeatAway&) = delete;

 private:
  Team* team_ = nullptr;
  int seat_ = -1;
};
// Around a target region run on the encountering thread (target.cpp): the
// thread keeps the seat it holds outside (`outside`'s), since the region
// adds to that seat's block, and leaves it only in the region's waits
// (SeatAway), as a member leaves its own.
class SeatKept {
 public:
  explicit SeatKept(const ThreadState& outside);
  ~SeatKept();
  SeatKept(const SeatKept&) = delete;
  SeatKept& operator=(const SeatKept&) = delete;

 private:
  friend class SeatAway;
  friend int seat_kept(const Team* t);
  Team* team_ = nullptr;
  int seat_ = -1;
  const SeatAway* away_ = nullptr;  // the wait that left it now, or null: held
  SeatKept* next_ = nullptr;        // the enclosing one on this thread
};
// The seat of t that a SeatKept of this thread holds now, or -1: a task of
// t run in a wait inside the region that does not leave it runs under it.
int seat_kept(const Team* t);

// ---- barrier, critical, single (sync.cpp) ----
void barrier();
// The barrier construct (an OMPT tool sees it as explicit).
void barrier_explicit();

// ---- worksharing (worksharing.cpp) ----
// Enters the thread's next construct; the first thread to arrive runs
// init(slot) before the others see it.
template <class Init>
WorkShare* ws_enter(Init init);
void ws_leave();
// The next chunk [lo, hi) in iteration numbers; false when none is left.
bool ws_next(std::uint64_t* lo, std::uint64_t* hi);
// Starts the thread's next loop construct (set up by the first thread to
// arrive) and hands out its first chunk, as program values.
// reductions: a reduction(task, ...) descriptor (reduction.hpp), or null.
bool loop_begin(int sched, std::uint64_t base, std::uint64_t step, std::uint64_t count,
                std::uint64_t chunk, std::uint64_t* istart, std::uint64_t* iend,
                std::uintptr_t* reductions = nullptr);
bool loop_next(std::uint64_t* istart, std::uint64_t* iend);
// The current construct's team scratch: *mem bytes in, the shared block out.
void share_mem(void** mem);
std::uint64_t count_signed(long start, long end, long incr);
std::uint64_t count_unsigned(bool up, unsigned long long start, unsigned long long end,
                             unsigned long long incr);
// GOMP_parallel_loop_*: a team whose members enter the loop before the body.
void parallel_loop(void (*fn)(void*), void* data, unsigned num_threads, int sched,
                   std::uint64_t base, std::uint64_t step, std::uint64_t count,
                   std::uint64_t chunk);
int resolve_sched(int sched, std::uint64_t* chunk);

// ---- doacross (doacross.cpp) ----
// For the LLVM ABI (kmpc_doacross.cpp): a loop's state, and posts and waits
// in iteration numbers (each within its dimension's count).
void* doacross_create(unsigned dims, const std::uint64_t* counts);
void doacross_post_at(void* d, const std::uint64_t* iter);
void doacross_wait_at(void* d, const std::uint64_t* iter);

// ---- ICVs (icv.cpp) ----
struct Icv {
  int nthreads = 0;  // nthreads-var; 0: dynamic (CPUs owned + borrowed)
  bool dynamic = true;
  bool dynamic_explicit = false;  // OMP_DYNAMIC or omp_set_dynamic said so
  int run_sched = kDynamic;
  int run_chunk = 1;
  int max_active_levels = 1;
  int nteams = 0;              // nteams-var (OMP_NUM_TEAMS); 0: one team per worker
  int teams_thread_limit = 0;  // teams-thread-limit-var; 0: the team's share
  bool wait_active = false;
  bool oversubscribed = false;  // joule runs more workers than CPUs: spin little
  int max_task_priority = 0;    // OMP_MAX_TASK_PRIORITY
  int default_device = 0;       // default-device-var (OMP_DEFAULT_DEVICE)
  int target_offload = 0;       // OMP_TARGET_OFFLOAD: 0 default, 1 mandatory, 2 disabled
};
Icv& icv();
// Reads the OMP_* settings (starting joule) once; exits with the message on a bad value.
// Once that is done (g_started, icv.cpp) a call is one load: std::call_once
// alone costs ~80 instructions (thread-local bookkeeping, pthread_once), and
// clang's code calls __kmpc_global_thread_num, hence this, once per task.
extern std::atomic<bool> g_started;
void ensure_init_slow();
inline void ensure_init() {
  if (!g_started.load(std::memory_order_acquire)) [[unlikely]]
    ensure_init_slow();
}
// OMP_DISPLAY_ENV / omp_display_env: the ICVs on stderr (display_env.cpp).
void display_env(bool verbose);

[[noreturn]] void unsupported(const char* entry);
// Prints "libjoule-omp: <what>" and exits with status 1 (a bad setting).
[[noreturn]] void fail_start(const char* what);
void warn_once(std::atomic<bool>& flag, const char* msg);

template <class Done>
void team_wait(Team* t, Done done) {
  wait_spin_then_help(
      t, [](void* d) { return (*static_cast<Done*>(d))(); }, &done);
}

template <class Init>
WorkShare* ws_enter(Init init) {
  ThreadState& s = self();
  Team* t = current_team();
  const std::int64_t c = s.ws_count++;
  WorkShare& w = t->slots[c % Team::kSlots];
  const std::int64_t prev = c >= Team::kSlots ? c - Team::kSlots + 1 : 0;
  for (;;) {
    std::int64_t g = w.gen.load(std::memory_order_acquire);
    if (g == c + 1) break;
    if (g == prev && (prev == 0 || w.left.load(std::memory_order_acquire) == t->n) &&
        w.gen.compare_exchange_strong(g, -(c + 1), std::memory_order_acq_rel)) {
      w.left.store(0, std::memory_order_relaxed);
      w.next.store(0, std::memory_order_relaxed);
      w.ordered_next.store(0, std::memory_order_relaxed);
      w.copy.store(nullptr, std::memory_order_relaxed);
      w.copied.store(false, std::memory_order_relaxed);
      ws_free_scratch(w);
      w.red = nullptr;
      init(w);
      w.gen.store(c + 1, std::memory_order_release);
      wake_team(t);
      break;
    }
    team_wait(t, [&] {
      const std::int64_t now = w.gen.load(std::memory_order_acquire);
      return now == c + 1 || (now == prev && w.left.load(std::memory_order_acquire) == t->n);
    });
  }
  s.ws = &w;
  s.static_trip = 0;
  return &w;
}

}  // namespace joule::omp
