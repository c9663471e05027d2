// Sleeping and waking threads with no work. Each thread sleeps on a futex
// word of its own (core::WaitSlot), so a wake reaches one chosen thread: a
// push wakes one sleeping worker (the nearest by index to the pusher), the
// last child of a sleeping taskwait wakes its parent's thread, a predecessor
// wakes the creator waiting for an undeferred task. Only stopping and CPU
// lending wake everyone. The common path (nobody asleep) costs one load.
//
// A push wakes a sleeper only when no worker is looking for work already
// (spinning in its idle loop, or woken and not yet running a task): a
// looker will find the task. The last looker to find work wakes the next
// sleeper if more work is visible, so a burst from one creator wakes the
// workers one after another, each wake paid by a worker, not by the
// creator (the "spinning threads" rule of D. Vyukov, "Scalable Go
// Scheduler Design Doc", 2012).
//
// Lost wake-ups are excluded the usual way: a sleeper publishes itself with
// a seq_cst read-modify-write and then re-checks its condition; a producer
// publishes its work with a seq_cst operation and then looks for sleepers.
// One of the two sees the other. So a sleep has no time limit (an idle
// runtime makes no wake-ups at all) unless something timed is due that no
// futex here watches: with CPU lending on, DROM requests and borrowed CPUs
// arrive through shared memory, so those sleeps end after kPollNs. Every
// condition a thread sleeps on has a waker (a push, the last child, a
// predecessor, a language layer's joule_wake_slot); a task that only one
// busy thread would look at must also wake a sleeper that can steal it
// (TaskLifecycle::submit_spread).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "wait_slot.hpp"

namespace joule::engine {

// Counts of wake-ups and futex calls, for JOULE_REPORT.
struct IdleStats {
  std::uint64_t sleeps = 0;           // futex waits entered
  std::uint64_t wakes_targeted = 0;   // a chosen thread woken (push, child, predecessor)
  std::uint64_t wakes_by_push = 0;    // of those, paid by the pushing thread (wake_for_push)
  std::uint64_t wakes_broadcast = 0;  // wake_all calls that found sleepers (stop, lending)
  std::uint64_t futex_wakes = 0;      // FUTEX_WAKE calls
  std::uint64_t spurious =
      0;  // woke with nothing to do (timeout, a wake meant for work someone else took)
  std::uint64_t late = 0;  // woke by the time limit with its condition met: a missed wake
};

class Idle {
 public:
  // workers: slots a push may wake (indices 0..workers-1). nodes: the NUMA
  // node of each worker's CPU, where its slot goes (one block per node; a
  // worker missing from it, a guest on a CPU not borrowed yet, gets memory
  // its first toucher places).
  explicit Idle(int workers, const std::vector<int>& nodes = {});
  ~Idle();
  Idle(const Idle&) = delete;
  Idle& operator=(const Idle&) = delete;

  core::WaitSlot& worker_slot(int w) noexcept { return *workers_[std::size_t(w)]; }
  // A slot for a thread that is not a worker; lives until the Idle does.
  core::WaitSlot* external_slot();

  // Sleeps on s until woken, unless wake_condition() already holds; at most
  // limit_ns when it is not kNoLimit (see the top of this file). May return
  // spuriously; callers loop. Returns true when a push's wake_one chose
  // this thread (the caller should pass it on if it leaves without taking
  // work: see pass_on).
  static constexpr long kNoLimit = 0;
  static constexpr long kPollNs = 100'000'000;  // lending: DROM and borrowed CPUs
  template <class Cond>
  bool sleep_unless(core::WaitSlot& s, Cond wake_condition, long limit_ns = kNoLimit) {
    const std::uint32_t seen = s.word.load(std::memory_order_acquire);
    enter(s);
    bool slept = false;
    bool timed_out = false;
    if (!wake_condition()) {
      timed_out = wait(s, seen, limit_ns);
      slept = true;
    }
    const bool chosen = leave(s);
    if (slept) {
      const bool met = wake_condition();
      if (!met) spurious_.fetch_add(1, std::memory_order_relaxed);
      // Woken by the clock with its condition met: nobody woke it (a lost
      // wake-up the lending poll repaired).
      if (met && timed_out) late_.fetch_add(1, std::memory_order_relaxed);
    }
    return chosen;
  }

  // Wakes one sleeping worker, nearest to `near` first; it counts as
  // looking for work until it runs a task or sleeps again (end_search).
  // With no worker asleep, a sleeping external thread (one waiting in a
  // taskwait runs any ready task) unless `externals` is false: a push no
  // worker would ever see otherwise, when the only worker is the main thread
  // and it has gone back to its own code, found by the perturbation sweep
  // (docs/internals-sleep-wake-checks.md). That
  // thread is claimed and counts as looking too, since its own wait may end
  // before it finds the task. The caller published its work with a seq_cst
  // operation (the ready queue's count or tail). False when nobody could be
  // woken.
  bool wake_one(int near, bool externals = true) noexcept {
    return sleepers_.load(std::memory_order_seq_cst) > 0 && wake_one_slow(near, externals);
  }
  // Wakes worker w if it sleeps and no wake has claimed it yet; it then
  // counts as looking for work, as after wake_one. False when it is awake or
  // already claimed (it comes for someone else's work). The caller published
  // its work with a seq_cst operation.
  bool wake_worker(int w) noexcept;
  // After a push: wake_one unless a worker is looking for work already.
  bool wake_for_push(int near) noexcept {
    if (searching_.load(std::memory_order_seq_cst) > 0 || !wake_one(near)) return false;
    wakes_by_push_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  // A worker starts / stops looking for work (see the top of this file).
  // end_search returns true when it was the last one looking.
  void begin_search() noexcept { searching_.fetch_add(1, std::memory_order_seq_cst); }
  bool end_search() noexcept { return searching_.fetch_sub(1, std::memory_order_seq_cst) == 1; }
  int searching() const noexcept { return searching_.load(std::memory_order_relaxed); }
  // Wakes the thread sleeping on s, if it sleeps. The caller published what
  // it waits for with a seq_cst operation.
  // A thread waiting off its seat (WaitSlot::forward) is woken too: the
  // caller's seq_cst publication precedes this load, and the waiter set
  // forward before it checked its condition, so one sees the other.
  void wake(core::WaitSlot* s) noexcept {
    if (!s) return;
    if (s->sleeping.load(std::memory_order_seq_cst)) {
      wakes_targeted_.fetch_add(1, std::memory_order_relaxed);
      signal(*s);
    }
    core::WaitSlot* f = s->forward.load(std::memory_order_seq_cst);
    if (f && f->sleeping.load(std::memory_order_seq_cst)) {
      wakes_targeted_.fetch_add(1, std::memory_order_relaxed);
      signal(*f);
    }
  }
  // Every sleeper: stopping, and CPU lending (parked workers re-check).
  void wake_all() noexcept;

  int sleepers() const noexcept { return sleepers_.load(std::memory_order_relaxed); }
  // Worker w's bit in the sleepers' table: set while it sleeps and no wake
  // has claimed it (the state dump).
  bool unclaimed(int w) const noexcept {
    return w >= 0 && w < count_ &&
           (words_[std::size_t(w / 64)].load(std::memory_order_relaxed) >> (w % 64)) & 1;
  }
  IdleStats stats() const noexcept;

 private:
  void enter(core::WaitSlot& s) noexcept;
  bool leave(core::WaitSlot& s) noexcept;
  // True when the sleep ended by its time limit (kNoLimit: none).
  bool wait(core::WaitSlot& s, std::uint32_t seen, long limit_ns) noexcept;
  void signal(core::WaitSlot& s) noexcept;
  bool wake_one_slow(int near, bool externals) noexcept;
  bool wake_external() noexcept;

  const int count_;
  const int words_count_;
  void place_slots(const std::vector<int>& nodes);

  // The slots live in per-node blocks (blocks_): a sleeping worker writes
  // its own slot, a waker reads it, so it belongs on the sleeper's node.
  std::unique_ptr<core::WaitSlot*[]> workers_;
  std::vector<void*> blocks_;
  // Bit w set: worker w sleeps and no push has chosen it yet.
  std::unique_ptr<std::atomic<std::uint64_t>[]> words_;
  alignas(64) std::atomic<int> sleepers_{0};
  std::atomic<int> searching_{0};          // workers looking for work (begin_search)
  std::atomic<int> external_sleepers_{0};  // of sleepers_, threads that are not workers
  std::mutex external_mutex_;
  std::deque<core::WaitSlot> externals_;
  alignas(64) std::atomic<std::uint64_t> sleeps_{0};
  std::atomic<std::uint64_t> wakes_targeted_{0};
  std::atomic<std::uint64_t> wakes_by_push_{0};
  std::atomic<std::uint64_t> wakes_broadcast_{0};
  std::atomic<std::uint64_t> futex_wakes_{0};
  std::atomic<std::uint64_t> spurious_{0};
  std::atomic<std::uint64_t> late_{0};
};

}  // namespace joule::engine
