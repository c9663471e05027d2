// Spare threads (spare_threads.hpp): the pool, handing a seat over and
// back, and a spare's loop while it stands in for a blocked worker.
#include "spare_threads.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <system_error>

#include "adaptive_spin.hpp"
#include "idle_spin.hpp"
#include "log.hpp"
#include "runtime.hpp"
#include "task_pool.hpp"

namespace joule::engine {

struct Spare {
  Spares* owner = nullptr;
  pthread_t thread{};
  core::WaitSlot* slot = nullptr;  // where it sleeps while pooled
  std::atomic<int> seat{-1};       // the seat it was given, -1 while pooled
  std::atomic<bool> exit{false};
  // Its thread's context, for the state dump (set when the thread starts).
  std::atomic<const ThreadContext*> ctx{nullptr};
  // Its ThreadContext::slot (waits in tasks), set by the thread itself once
  // it runs; a holder may be woken before that (wake_holder).
  std::atomic<core::WaitSlot*> own_slot{nullptr};
};

Spares::Spares(Runtime& rt) : rt_(rt) {}

Spares::~Spares() { stop(); }

void Spares::reserve(int seats) {
  seat_count_ = seats;
  seats_ = std::make_unique<Seat[]>(std::size_t(seats));
}

void Spares::futex_wait(core::WaitSlot& s, std::uint32_t seen, long timeout_ns) noexcept {
  const timespec ts{timeout_ns / 1'000'000'000, timeout_ns % 1'000'000'000};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&s.word), FUTEX_WAIT_PRIVATE, seen,
          timeout_ns > 0 ? &ts : nullptr, nullptr, 0);
}

void Spares::unpark(core::WaitSlot& s) noexcept {
  s.word.fetch_add(1, std::memory_order_seq_cst);
  if (s.sleeping.load(std::memory_order_seq_cst))
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&s.word), FUTEX_WAKE_PRIVATE, 1, nullptr,
            nullptr, 0);
}

void Spares::park_for(core::WaitSlot& s, std::uint64_t ns) noexcept {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  for (;;) {
    const auto left = until - std::chrono::steady_clock::now();
    if (left.count() <= 0) return;
    const long n = long(std::chrono::duration_cast<std::chrono::nanoseconds>(left).count());
    const timespec ts{n / 1'000'000'000, n % 1'000'000'000};
    // Nobody wakes this sleep on purpose: a wake meant for an earlier
    // block only ends one round early.
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&s.word), FUTEX_WAIT_PRIVATE,
            s.word.load(std::memory_order_acquire), &ts, nullptr, 0);
  }
}

int Spares::seat_of(const ThreadContext& ctx) noexcept {
  if (ctx.worker) return ctx.worker->index();
  if (ctx.spare) return ctx.spare->seat.load(std::memory_order_relaxed);
  return -1;
}

core::WaitSlot* Spares::private_slot() {
  std::lock_guard guard(mutex_);
  return &slots_.emplace_back();
}

int Spares::threads() const {
  std::lock_guard guard(mutex_);
  return int(all_.size());
}

int Spares::hand_over(ThreadContext& ctx) {
  const int seat = seat_of(ctx);
  if (seat < 0) return -1;  // an external thread holds no seat
  handovers_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard guard(seat_mutex_);
    if (Waiter* w = pick_locked(seat, false)) {
      grant_locked(seat, w);
      return seat;
    }
  }
  // A waiter that comes meanwhile is seen by the spare at its loop's top.
  Spare* s = acquire();
  seats_[std::size_t(seat)].stand_in.store(s, std::memory_order_seq_cst);
  assign(s, seat);
  return seat;
}

int Spares::leave_to_sleep(ThreadContext& ctx) {
  TaskLifecycle& tasks = rt_.tasks();
  if (ctx.searching) tasks.end_search(ctx, false);
  tasks.flush_held(ctx);
  tasks.flush_private(ctx);
  TaskPool::flush_remote_frees();
  if (!ctx.block_slot) ctx.block_slot = private_slot();
  return hand_over(ctx);
}

void Spares::take_back(ThreadContext& ctx, int seat) {
  if (seat < 0) return;
  Waiter me{ctx.spare, ctx.block_slot, true};
  wait_for_seat(ctx, seat, me, nullptr, nullptr);
}

void Spares::yield_seat(ThreadContext& ctx, bool (*done)(void*), void* arg) {
  const int seat = seat_of(ctx);
  if (seat < 0) return;
  TaskLifecycle& tasks = rt_.tasks();
  if (ctx.searching) tasks.end_search(ctx, true);
  tasks.flush_held(ctx);
  tasks.flush_private(ctx);  // nothing waits in this thread while it waits
  if (!ctx.block_slot) ctx.block_slot = private_slot();
  {
    std::lock_guard guard(seat_mutex_);
    Waiter* w = pick_locked(seat, true);
    if (!w) return;  // served by a hand-over meanwhile
    grant_locked(seat, w);
  }
  Waiter me{ctx.spare, ctx.block_slot, false};
  wait_for_seat(ctx, seat, me, done, arg);
}

// Waits as `me` until the seat is handed to it. A waiter that is not
// urgent (it gave the seat up in a wait) asks again every kRecheckNs: once
// its wait is over it becomes urgent, and the holder gives the seat up.
void Spares::wait_for_seat(ThreadContext& ctx, int seat, Waiter& me, bool (*done)(void*),
                           void* arg) {
  constexpr long kRecheckNs = 200'000;
  WaitNote note(ctx, "its CPU back (the thread running there yields at a task boundary)",
                ctx.current);
  Spare* holder = nullptr;
  {
    std::lock_guard guard(seat_mutex_);
    seats_[std::size_t(seat)].waiters.push_back(&me);
    refresh_locked(seat);
    holder = seats_[std::size_t(seat)].stand_in.load(std::memory_order_seq_cst);
  }
  // Always: a spare holder leaves for any waiter, and may have gone to
  // sleep on the seat just before this one queued.
  wake_holder(seat, holder);
  const auto granted = [&me] { return me.granted.load(std::memory_order_seq_cst); };
  while (!me.urgent && done && !park_until(*me.slot, granted, kRecheckNs)) {
    if (!done(arg)) continue;
    {
      std::lock_guard guard(seat_mutex_);
      if (me.granted.load(std::memory_order_relaxed)) break;
      me.urgent = true;
      refresh_locked(seat);
      holder = seats_[std::size_t(seat)].stand_in.load(std::memory_order_seq_cst);
    }
    wake_holder(seat, holder);
  }
  park_until(*me.slot, granted);
}

// The holder may sleep on the seat's slot (idle, or in a wait of the
// worker's own thread) or, a spare, on its own (a wait inside a task).
void Spares::wake_holder(int seat, Spare* holder) {
  rt_.idle().wake(&rt_.idle().worker_slot(seat));
  if (core::WaitSlot* own = holder ? holder->own_slot.load(std::memory_order_acquire) : nullptr)
    rt_.idle().wake(own);
}

bool Spares::leave_seat(ThreadContext& ctx, int seat) {
  TaskLifecycle& tasks = rt_.tasks();
  if (ctx.searching) tasks.end_search(ctx, true);
  tasks.flush_private(ctx);
  std::lock_guard guard(seat_mutex_);
  Waiter* w = pick_locked(seat, false);
  if (!w) return false;
  grant_locked(seat, w);
  return true;
}

std::atomic<bool>& Spares::wanted(int seat) { return rt_.workers().worker(seat)->seat_wanted(); }

void Spares::refresh_locked(int seat) {
  Seat& st = seats_[std::size_t(seat)];
  bool urgent = false;
  for (const Waiter* w : st.waiters) urgent = urgent || w->urgent;
  st.waiting.store(int(st.waiters.size()), std::memory_order_seq_cst);
  wanted(seat).store(urgent, std::memory_order_seq_cst);
}

// An urgent waiter first (a resumed task), in the order they came.
Spares::Waiter* Spares::pick_locked(int seat, bool urgent_only) {
  std::deque<Waiter*>& q = seats_[std::size_t(seat)].waiters;
  auto it = std::find_if(q.begin(), q.end(), [](const Waiter* w) { return w->urgent; });
  if (it == q.end()) {
    if (urgent_only || q.empty()) return nullptr;
    it = q.begin();
  }
  Waiter* w = *it;
  q.erase(it);
  refresh_locked(seat);
  return w;
}

void Spares::grant_locked(int seat, Waiter* w) {
  seats_[std::size_t(seat)].stand_in.store(w->who, std::memory_order_seq_cst);
  core::WaitSlot* slot = w->slot;  // w may be gone once granted is seen
  w->granted.store(true, std::memory_order_seq_cst);
  unpark(*slot);
}

Spare* Spares::acquire() {
  std::lock_guard guard(mutex_);
  if (!pool_.empty()) {
    Spare* s = pool_.back();
    pool_.pop_back();
    return s;
  }
  auto spare = std::make_unique<Spare>();
  spare->owner = this;
  spare->slot = &slots_.emplace_back();
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, std::size_t(rt_.settings().stack_or_default()));
  const int rc = pthread_create(&spare->thread, &attr, &Spares::thread_main, spare.get());
  pthread_attr_destroy(&attr);
  if (rc != 0) throw std::system_error(rc, std::generic_category(), "starting a spare thread");
  all_.push_back(std::move(spare));
  return all_.back().get();
}

void Spares::assign(Spare* s, int seat) {
  s->seat.store(seat, std::memory_order_seq_cst);
  unpark(*s->slot);
}

void* Spares::thread_main(void* self) {
  auto* s = static_cast<Spare*>(self);
  s->owner->serve(*s);
  return nullptr;
}

void Spares::serve(Spare& s) {
  ThreadContext& ctx = rt_.context();
  ctx.spare = &s;
  s.ctx.store(&ctx, std::memory_order_release);
  s.own_slot.store(ctx.slot, std::memory_order_release);
  for (;;) {
    park_until(*s.slot, [&] {
      return s.seat.load(std::memory_order_seq_cst) >= 0 || s.exit.load(std::memory_order_seq_cst);
    });
    const int seat = s.seat.load(std::memory_order_acquire);
    if (seat < 0) break;  // stop()
    stand_in(seat, ctx);
    std::lock_guard guard(mutex_);
    s.seat.store(-1, std::memory_order_relaxed);
    pool_.push_back(&s);
  }
  TaskPool::flush_remote_frees();
}

// A worker's loop, as a thread that is not a worker: run ready tasks and the
// polling services until a thread waits for the seat (the worker's own, or
// another resumed task's), sleeping on the seat's slot when there is
// nothing to do. A task it runs that blocks hands the seat on, and this
// loop goes on once the seat is handed back.
void Spares::stand_in(int seat, ThreadContext& ctx) {
  if (rt_.settings().bind && !rt_.topology().synthetic())
    rt_.topology().bind_current_thread(rt_.workers().worker(seat)->cpu());
  const std::atomic<int>& waiting = seats_[std::size_t(seat)].waiting;
  TaskLifecycle& tasks = rt_.tasks();
  PollingServices& polling = rt_.polling();
  queues::ReadyQueues& queues = rt_.scheduler();
  const AdaptiveSpin spin(rt_.settings().spin_us, 0);
  ctx.seat_wanted = &wanted(seat);
  ctx.in_loop = true;
  for (;;) {
    if (waiting.load(std::memory_order_seq_cst) > 0 && leave_seat(ctx, seat)) break;
    polling.poll_if_active();
    if (tasks.run_one(ctx)) continue;  // the next check is a task boundary
    const auto deadline = std::chrono::steady_clock::now() + spin.budget();
    if (spin_until([&] { return queues.probe(-1) || waiting.load(std::memory_order_relaxed) > 0; },
                   deadline, rt_.oversubscribed()))
      continue;
    sleep_on_seat(seat, ctx);
  }
  ctx.in_loop = false;
  ctx.seat_wanted = nullptr;
}

void Spares::sleep_on_seat(int seat, ThreadContext& ctx) {
  const std::atomic<int>& waiting = seats_[std::size_t(seat)].waiting;
  if (ctx.searching) rt_.tasks().end_search(ctx, false);
  TaskPool::flush_remote_frees();
  queues::ReadyQueues& queues = rt_.scheduler();
  const long limit = rt_.lending().lends() ? Idle::kPollNs : Idle::kNoLimit;
  // A waiter queues under seat_mutex_ (seq_cst count) before it wakes the
  // seat's slot: Idle's protocol sees one or the other.
  ctx.searching = rt_.idle().sleep_unless(
      rt_.idle().worker_slot(seat),
      [&] {
        return waiting.load(std::memory_order_seq_cst) > 0 || ctx.next ||
               queues.available_to(-1) > 0;
      },
      rt_.polling().sleep_cap(limit));
}

bool Spares::view(std::vector<SpareView>& out) const {
  std::unique_lock guard(mutex_, std::defer_lock);
  for (int i = 0; i < 1000 && !guard.try_lock(); ++i) sched_yield();
  if (!guard.owns_lock()) return false;
  for (const auto& s : all_) {
    const int seat = s->seat.load(std::memory_order_relaxed);
    const bool holds =
        seat >= 0 && seat < seat_count_ &&
        seats_[std::size_t(seat)].stand_in.load(std::memory_order_acquire) == s.get();
    out.push_back(SpareView{seat, holds, s->ctx.load(std::memory_order_acquire)});
  }
  return true;
}

void Spares::stop() {
  std::vector<Spare*> all;
  {
    std::lock_guard guard(mutex_);
    if (stopping_) return;
    stopping_ = true;
    for (auto& s : all_) all.push_back(s.get());
  }
  for (Spare* s : all) {
    s->exit.store(true, std::memory_order_seq_cst);
    unpark(*s->slot);
  }
  for (Spare* s : all) pthread_join(s->thread, nullptr);
  std::lock_guard guard(mutex_);
  all_.clear();
  pool_.clear();
}

}  // namespace joule::engine
