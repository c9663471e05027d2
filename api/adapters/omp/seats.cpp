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
// takes a free one for its body and runs under that number.
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
  for (int round = 0; !try_take(t, k, nullptr) && !try_take(t, k, kUnstarted); ++round)
    pause_for_seat(round);
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
  s.team->seats[s.seat].holder.store(nullptr, std::memory_order_release);
  s.seat = -1;
}

SeatAway::SeatAway() {
  ThreadState& s = self();
  if (s.seat < 0 || !s.team || s.team->red_active.load(std::memory_order_acquire) == 0) return;
  team_ = s.team;
  seat_ = s.seat;
  seat_leave();
}

SeatAway::~SeatAway() {
  if (team_) seat_take(team_, seat_);
}

}  // namespace joule::omp
