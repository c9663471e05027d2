// Seats: which thread may act as thread number k of a team right now.
//
// joule runs a team's explicit tasks on any worker, members or not (an idle
// worker, a member of another team, a thread waiting in joule); outside the
// team such a task has borrowed its creator's thread number. Task reductions
// need more: GCC's code indexes the private copies by omp_get_thread_num()
// and folds omp_get_num_threads() of them (reduction.hpp), so two threads
// running at once must never use one number. A seat per thread number says
// who holds it: a member holds its own while it runs; while it waits (and
// runs other tasks) it leaves it, if the team has task reductions. A task
// that sees a reduction and runs on a thread without a seat of its team
// takes a free one for its body and runs under that number. A target
// region keeps the seat of the thread that runs it in the same way
// (SeatKept, target.cpp): held while the region runs, left in its waits.
#include <sched.h>
#include <time.h>

#include <algorithm>

#include "team.hpp"

namespace joule::omp {
namespace {

constexpr int kSpins = 64;
// A member's seat before the member first takes it: nobody may borrow it,
// since a parallel reduction(task, ...)'s implicit task initialises its
// block then, overwriting what a borrower would have added.
const void* const kUnstarted = reinterpret_cast<const void*>(std::uintptr_t(1));

const void* me() { return &self(); }

// This thread's innermost SeatKept (target regions it runs, nested).
thread_local SeatKept* t_kept = nullptr;

bool try_take(Team* t, int k, const void* from) {
  return t->seats[k].holder.compare_exchange_strong(from, me(), std::memory_order_acquire,
                                                    std::memory_order_relaxed);
}

// A seat is held by a running body, which ends or waits soon: spin, then
// yield the CPU in short sleeps. It never runs tasks meanwhile (each would
// nest on this stack and might want a seat as well).
void pause_for_seat(int round) {
  if (round < kSpins) {
    __builtin_ia32_pause();
  } else if (round < 2 * kSpins) {
    sched_yield();
  } else {
    timespec ts{0, 20000};
    nanosleep(&ts, nullptr);
  }
}

void take(Team* t, int k) {
  for (int round = 0; !try_take(t, k, nullptr) && !try_take(t, k, kUnstarted); ++round)
    pause_for_seat(round);
}

void leave(Team* t, int k) { t->seats[k].holder.store(nullptr, std::memory_order_release); }

}  // namespace

void seats_reset(Team* t, int n) {
  if (t->seats_size < n) {
    delete[] t->seats;
    t->seats = new Seat[std::size_t(n)];
    t->seats_size = n;
  }
  for (int k = 0; k < t->seats_size; ++k)
    t->seats[k].holder.store(kUnstarted, std::memory_order_relaxed);
  t->red_active.store(0, std::memory_order_relaxed);
}

void seat_take(Team* t, int k) {
  take(t, k);
  self().seat = k;
}

int seat_borrow(Team* t, int prefer) {
  const int n = std::min(t->n, t->seats_size);
  if (prefer < 0 || prefer >= n) prefer = 0;
  for (int round = 0;; ++round) {
    for (int i = 0; i < n; ++i) {
      const int k = (prefer + i) % n;
      if (t->seats[k].holder.load(std::memory_order_relaxed) == nullptr &&
          try_take(t, k, nullptr)) {
        self().seat = k;
        return k;
      }
    }
    pause_for_seat(round);
  }
}

void seat_leave() {
  ThreadState& s = self();
  if (s.seat < 0) return;
  leave(s.team, s.seat);
  s.seat = -1;
}

// A kept seat that the current task runs under (seat_kept) is left, or
// kept, with the thread's own.
SeatAway::SeatAway() {
  ThreadState& s = self();
  Team* const team = s.team;
  const int seat = s.seat;
  if (seat >= 0 && team && team->red_active.load(std::memory_order_acquire) != 0) {
    team_ = team;
    seat_ = seat;
    seat_leave();
  }
  for (SeatKept* k = t_kept; k; k = k->next_) {
    if (k->away_) continue;
    if (k->team_ == team && k->seat_ == seat) {
      if (team_) k->away_ = this;
      continue;
    }
    if (k->team_->red_active.load(std::memory_order_acquire) == 0) continue;
    k->away_ = this;
    leave(k->team_, k->seat_);
  }
}

SeatAway::~SeatAway() {
  for (SeatKept* k = t_kept; k; k = k->next_) {
    if (k->away_ != this) continue;
    k->away_ = nullptr;
    if (k->team_ != team_ || k->seat_ != seat_) take(k->team_, k->seat_);
  }
  if (team_) seat_take(team_, seat_);
}

// A seat an enclosing SeatKept holds (a task runs under it, seat_kept)
// stays that one's: one record per held seat, left and taken once.
SeatKept::SeatKept(const ThreadState& outside) {
  if (outside.seat < 0 || !outside.team) return;
  for (const SeatKept* k = t_kept; k; k = k->next_)
    if (k->team_ == outside.team && k->seat_ == outside.seat && !k->away_) return;
  team_ = outside.team;
  seat_ = outside.seat;
  next_ = t_kept;
  t_kept = this;
}

SeatKept::~SeatKept() {
  if (team_) t_kept = next_;
}

int seat_kept(const Team* t) {
  for (const SeatKept* k = t_kept; k; k = k->next_)
    if (k->team_ == t && !k->away_) return k->seat_;
  return -1;
}

}  // namespace joule::omp
