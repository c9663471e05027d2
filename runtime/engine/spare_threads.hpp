// Spare threads: a blocked task keeps its own thread, and a spare takes
// over that thread's CPU meanwhile (docs/internals.md, "Blocked tasks").
//
// Each worker's CPU is a seat: the worker's wait slot, the one pushes wake
// (Idle). While the worker's thread runs, the seat is its own. When a task
// blocks (Blocking::block), its thread sleeps on a private slot no push
// targets, and hand_over gives the seat to a spare from the pool (made on
// demand, reused): the spare runs ready tasks and the polling services and
// sleeps on the seat, so pushes wake it as they would the worker. When the
// task is unblocked its thread wakes at once and take_back reclaims the
// seat; the spare leaves at its next task boundary and returns to the pool
// (until then the process runs one thread more than it has CPUs).
//
// A spare is modelled on an external helping thread: it has no Worker (no
// deque of its own, no lending, not in the state dump's worker list); it
// pops as a thread that is not a worker and answers the seat's index where
// a CPU id is asked (ALPI, Nanos6). A spare whose task blocks hands the
// seat on to another spare. A blocked thread outside any seat (an external
// thread) just sleeps.
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

  // The calling thread is about to sleep in a blocked task: a spare takes
  // the seat it holds. Returns the seat to take back (-1: none to take
  // back, the calling thread was not a worker).
  int hand_over(ThreadContext& ctx);
  // The blocked task was unblocked: its worker's thread takes its seat back
  // and returns once no spare sleeps on it any more.
  void take_back(int seat);
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
  template <class Done>
  static void park_until(core::WaitSlot& s, Done done) {
    for (;;) {
      const std::uint32_t seen = s.word.load(std::memory_order_acquire);
      s.sleeping.store(true, std::memory_order_seq_cst);
      if (done()) break;
      futex_wait(s, seen);
      s.sleeping.store(false, std::memory_order_relaxed);
      if (done()) break;
    }
    s.sleeping.store(false, std::memory_order_relaxed);
  }
  static void unpark(core::WaitSlot& s) noexcept;
  // A slot for park_until, alive until the runtime stops; not Idle's, so
  // Idle's broadcasts (wake_all) never touch the threads parked there.
  core::WaitSlot* private_slot();
  // Sleeps on s for ns nanoseconds (ALPI's waitfor).
  static void park_for(core::WaitSlot& s, std::uint64_t ns) noexcept;

 private:
  struct Seat {
    // The spare that stands in for the worker now; null while the worker's
    // own thread holds the seat.
    alignas(64) std::atomic<Spare*> stand_in{nullptr};
  };
  static void futex_wait(core::WaitSlot& s, std::uint32_t seen) noexcept;
  static void* thread_main(void* self);
  Spare* acquire();  // from the pool, or a new thread
  void assign(Spare* s, int seat);
  void serve(Spare& s);  // a spare's life: wait for a seat, stand in, repeat
  void stand_in(Spare& s, int seat, ThreadContext& ctx);
  void sleep_on_seat(Spare& s, int seat, ThreadContext& ctx);

  Runtime& rt_;
  std::unique_ptr<Seat[]> seats_;
  int seat_count_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Spare>> all_;  // mutex_
  std::vector<Spare*> pool_;                 // mutex_: spares with no seat
  std::deque<core::WaitSlot> slots_;         // mutex_: private_slot's
  bool stopping_ = false;                    // mutex_
  std::atomic<std::uint64_t> handovers_{0};
};

}  // namespace joule::engine
