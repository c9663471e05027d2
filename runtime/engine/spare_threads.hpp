// Spare threads: a blocked task keeps its own thread, and a spare takes
// over that thread's CPU meanwhile (docs/internals.md, "Blocked tasks").
//
// Each worker's CPU is a seat: the worker's wait slot, the one pushes wake
// (Idle), and the CPU id that ALPI and the Nanos6 API answer. One thread
// runs on a seat at a time, as one thread runs on a CPU in Nanos6: layers
// above keep per-CPU single-producer queues by that id (TAMPI's tickets).
// When a task blocks (Blocking::block), its thread sleeps on a private slot
// no push targets, and hand_over gives the seat to a thread waiting for it,
// else to a spare from the pool (made on demand, reused): the spare runs
// ready tasks and the polling services and sleeps on the seat, so pushes
// wake it as they would the worker. When the task is unblocked its thread
// queues for the seat (take_back) and sleeps until it is handed back: a
// spare hands it over at its next task boundary and returns to the pool; a
// worker's own thread at its next task boundary or wait (yield_seat), and
// waits in turn. A spare whose task blocks hands the seat on the same way.
//
// A spare is modelled on an external helping thread: it has no Worker (no
// deque of its own, no lending, not in the state dump's worker list); it
// pops as a thread that is not a worker and answers the seat's index where
// a CPU id is asked (ALPI, Nanos6). A blocked thread outside any seat (an
// external thread) just sleeps.
#pragma once

#include <pthread.h>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "thread_context.hpp"
#include "wait_slot.hpp"

namespace joule::engine {

class Runtime;

struct Spare;

class Spares {
 public:
  explicit Spares(Runtime& rt);
  ~Spares();
  Spares(const Spares&) = delete;
  Spares& operator=(const Spares&) = delete;

  void reserve(int seats);  // one per possible worker (Workforce::max)

  // The calling thread is about to sleep in a blocked task: the seat it
  // holds goes to a thread waiting for it, else to a spare. Returns the
  // seat to take back (-1: none, the calling thread holds no seat).
  int hand_over(ThreadContext& ctx);
  // The calling thread sleeps off its seat (a blocked task, a timed block,
  // a wait that yields): what it holds for later goes out first (held
  // child counts, its immediate successor, remote frees), the seat is handed
  // over, park() sleeps on ctx.block_slot, and the seat comes back at its
  // holder's next task boundary.
  template <class Park>
  void sleep_off_seat(ThreadContext& ctx, Park park) {
    const int seat = leave_to_sleep(ctx);
    park();
    take_back(ctx, seat);
  }
  // The blocked task was unblocked: its thread waits until the seat's
  // holder hands the seat back (at its next task boundary).
  void take_back(ThreadContext& ctx, int seat);
  // At a task boundary of the seat's holder while a resumed task waits for
  // the seat (ctx.seat_wanted): hands it over and waits to get it back.
  // done(arg), when given, is what the caller waits for (help_until): it
  // asks for the seat at once when that is true, and otherwise only when
  // the seat would go idle.
  void yield_seat(ThreadContext& ctx, bool (*done)(void*), void* arg);
  // The seat the calling thread runs on: its worker's index, the seat a
  // spare stands in for, -1 for other threads.
  static int seat_of(const ThreadContext& ctx) noexcept;

  // Threads made so far and seats handed over, for the report and tests.
  int threads() const;
  std::uint64_t handovers() const noexcept { return handovers_.load(std::memory_order_relaxed); }

  // For the state dump: every spare made so far, the seat it stands in for
  // (-1: in the pool) and its thread's context (null before it started).
  // False, nothing copied, when the pool stayed locked through every try.
  struct SpareView {
    int seat;
    bool holds;  // it stands in for that seat's worker now (false: it was, and blocked)
    const ThreadContext* ctx;
  };
  bool view(std::vector<SpareView>& out) const;
  // At stop, every task done: the pooled spares end and are joined.
  void stop();

  // Sleeping on a private slot, not counted by Idle (a pushing thread never
  // looks for it): the blocked thread and a pooled spare. The waker changes
  // what done() reads with a seq_cst operation, then calls unpark.
  // With timeout_ns > 0 it returns done() after at most that long.
  template <class Done>
  static bool park_until(core::WaitSlot& s, Done done, long timeout_ns = 0) {
    bool met = false;
    for (;;) {
      const std::uint32_t seen = s.word.load(std::memory_order_acquire);
      s.sleeping.store(true, std::memory_order_seq_cst);
      if ((met = done())) break;
      futex_wait(s, seen, timeout_ns);
      s.sleeping.store(false, std::memory_order_relaxed);
      if ((met = done()) || timeout_ns > 0) break;
    }
    s.sleeping.store(false, std::memory_order_relaxed);
    return met;
  }
  static void unpark(core::WaitSlot& s) noexcept;
  // A slot for park_until, alive until the runtime stops; not Idle's, so
  // Idle's broadcasts (wake_all) never touch the threads parked there.
  core::WaitSlot* private_slot();
  // Sleeps on s for ns nanoseconds (ALPI's waitfor).
  static void park_for(core::WaitSlot& s, std::uint64_t ns) noexcept;

 private:
  // A thread that wants a seat back: a resumed task's (urgent: the holder
  // gives the seat up at its next task boundary) or a holder that gave it
  // up in a wait (it asks again once its wait is over).
  struct Waiter {
    Spare* who;            // null: the seat's own worker thread
    core::WaitSlot* slot;  // where it sleeps (ThreadContext::block_slot)
    bool urgent;           // seat_mutex_
    std::atomic<bool> granted{false};
  };
  struct Seat {
    // The spare that holds the seat now; null while the worker's own
    // thread holds it.
    alignas(64) std::atomic<Spare*> stand_in{nullptr};
    std::atomic<int> waiting{0};  // waiters.size(), read without the lock
    std::deque<Waiter*> waiters;  // seat_mutex_
  };
  static void futex_wait(core::WaitSlot& s, std::uint32_t seen, long timeout_ns = 0) noexcept;
  int leave_to_sleep(ThreadContext& ctx);  // sleep_off_seat's flushes and hand-over
  std::atomic<bool>& wanted(int seat);     // the seat's worker's flag: an urgent waiter
  void refresh_locked(int seat);
  Waiter* pick_locked(int seat, bool urgent_only);
  void grant_locked(int seat, Waiter* w);
  void wake_holder(int seat, Spare* holder);
  void wait_for_seat(ThreadContext& ctx, int seat, Waiter& me, bool (*done)(void*), void* arg);
  bool leave_seat(ThreadContext& ctx, int seat);  // a spare at its loop's top
  static void* thread_main(void* self);
  Spare* acquire();  // from the pool, or a new thread
  void assign(Spare* s, int seat);
  void serve(Spare& s);  // a spare's life: wait for a seat, stand in, repeat
  void stand_in(int seat, ThreadContext& ctx);
  void sleep_on_seat(int seat, ThreadContext& ctx);

  Runtime& rt_;
  std::unique_ptr<Seat[]> seats_;
  int seat_count_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Spare>> all_;  // mutex_
  std::vector<Spare*> pool_;                 // mutex_: spares with no seat
  std::deque<core::WaitSlot> slots_;         // mutex_: private_slot's
  std::mutex seat_mutex_;                    // the seats' waiters
  bool stopping_ = false;                    // mutex_
  std::atomic<std::uint64_t> handovers_{0};
};

}  // namespace joule::engine
