// Spare threads (spare_threads.hpp): the pool, handing a seat over and
// back, and a spare's loop while it stands in for a blocked worker.
#include "spare_threads.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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
  // Inside its sleep on the seat's slot (or about to be): the worker taking
  // the seat back waits until this clears (take_back).
  std::atomic<bool> on_seat{false};
  // Its thread's context, for the state dump (set when the thread starts).
  std::atomic<const ThreadContext*> ctx{nullptr};
};

Spares::Spares(Runtime& rt) : rt_(rt) {}

Spares::~Spares() { stop(); }

void Spares::reserve(int seats) {
  seat_count_ = seats;
  seats_ = std::make_unique<Seat[]>(std::size_t(seats));
}

void Spares::futex_wait(core::WaitSlot& s, std::uint32_t seen) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&s.word), FUTEX_WAIT_PRIVATE, seen, nullptr,
          nullptr, 0);
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
  if (ctx.worker) {
    const int seat = ctx.worker->index();
    Spare* s = acquire();
    // The worker runs, so nobody stands in for it now: a plain store.
    seats_[std::size_t(seat)].stand_in.store(s, std::memory_order_seq_cst);
    assign(s, seat);
    return seat;
  }
  if (!ctx.spare) return -1;  // an external thread holds no seat
  Spare* me = ctx.spare;
  const int seat = me->seat.load(std::memory_order_relaxed);
  Spare* s = acquire();
  // The seat passes on only while this spare still holds it (its worker
  // may have taken it back meanwhile).
  if (seats_[std::size_t(seat)].stand_in.compare_exchange_strong(me, s,
                                                                 std::memory_order_seq_cst)) {
    assign(s, seat);
  } else {
    std::lock_guard guard(mutex_);
    pool_.push_back(s);
  }
  return -1;
}

void Spares::take_back(int seat) {
  if (seat < 0) return;
  Spare* s = seats_[std::size_t(seat)].stand_in.exchange(nullptr, std::memory_order_seq_cst);
  if (!s) return;
  // The spare may sleep on the seat's slot: wake it and wait until it is
  // off, so that this thread's own later sleeps there are its alone.
  core::WaitSlot& slot = rt_.idle().worker_slot(seat);
  while (s->on_seat.load(std::memory_order_seq_cst)) {
    rt_.idle().wake(&slot);
    sched_yield();
  }
}

Spare* Spares::acquire() {
  std::lock_guard guard(mutex_);
  handovers_.fetch_add(1, std::memory_order_relaxed);
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
  for (;;) {
    park_until(*s.slot, [&] {
      return s.seat.load(std::memory_order_seq_cst) >= 0 || s.exit.load(std::memory_order_seq_cst);
    });
    const int seat = s.seat.load(std::memory_order_acquire);
    if (seat < 0) break;  // stop()
    stand_in(s, seat, ctx);
    std::lock_guard guard(mutex_);
    s.seat.store(-1, std::memory_order_relaxed);
    pool_.push_back(&s);
  }
  TaskPool::flush_remote_frees();
}

// A worker's loop, as a thread that is not a worker: run ready tasks and the
// polling services until the seat is taken back, sleeping on the seat's
// slot when there is nothing to do.
void Spares::stand_in(Spare& s, int seat, ThreadContext& ctx) {
  if (rt_.settings().bind && !rt_.topology().synthetic())
    rt_.topology().bind_current_thread(rt_.workers().worker(seat)->cpu());
  std::atomic<Spare*>& holder = seats_[std::size_t(seat)].stand_in;
  TaskLifecycle& tasks = rt_.tasks();
  PollingServices& polling = rt_.polling();
  queues::ReadyQueues& queues = rt_.scheduler();
  const AdaptiveSpin spin(rt_.settings().spin_us, 0);
  ctx.in_loop = true;
  while (holder.load(std::memory_order_acquire) == &s) {
    polling.poll_if_active();
    if (tasks.run_one(ctx)) continue;  // the next check is a task boundary
    const auto deadline = std::chrono::steady_clock::now() + spin.budget();
    if (spin_until([&] { return queues.probe(-1) || holder.load(std::memory_order_relaxed) != &s; },
                   deadline, rt_.oversubscribed()))
      continue;
    sleep_on_seat(s, seat, ctx);
  }
  if (ctx.searching) tasks.end_search(ctx, true);
  tasks.flush_private(ctx);
  ctx.in_loop = false;
}

void Spares::sleep_on_seat(Spare& s, int seat, ThreadContext& ctx) {
  std::atomic<Spare*>& holder = seats_[std::size_t(seat)].stand_in;
  if (ctx.searching) rt_.tasks().end_search(ctx, false);
  TaskPool::flush_remote_frees();
  queues::ReadyQueues& queues = rt_.scheduler();
  const long limit = rt_.lending().lends() ? Idle::kPollNs : Idle::kNoLimit;
  // on_seat before the check, the worker's exchange before its read of
  // on_seat (take_back): one of the two sees the other.
  s.on_seat.store(true, std::memory_order_seq_cst);
  if (holder.load(std::memory_order_seq_cst) == &s)
    ctx.searching = rt_.idle().sleep_unless(
        rt_.idle().worker_slot(seat),
        [&] {
          return holder.load(std::memory_order_seq_cst) != &s || ctx.next ||
                 queues.available_to(-1) > 0;
        },
        rt_.polling().sleep_cap(limit));
  s.on_seat.store(false, std::memory_order_seq_cst);
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
