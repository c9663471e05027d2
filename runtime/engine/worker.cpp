#include "worker.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <system_error>

#include "cpu_manager.hpp"
#include "idle_spin.hpp"
#include "log.hpp"
#include "numa_memory.hpp"
#include "overflow_guard.hpp"
#include "runtime.hpp"
#include "task_pool.hpp"

namespace joule::engine {

using namespace joule::core;

Worker::Worker(Runtime& rt, int index, int cpu, int node)
    : rt_(rt), index_(index), cpu_(cpu), node_(node), spin_(rt.settings().spin_us, 0) {
  pool_.set_node(node);
}

void* Worker::operator new(std::size_t bytes, int node) {
  return NumaMemory::instance().allocate_on(bytes, node, MemoryUse::worker_state);
}

void Worker::operator delete(void* p) noexcept { NumaMemory::instance().release(p); }

void Worker::start() {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, std::size_t(rt_.settings().stack_or_default()));
  const int rc = pthread_create(
      &thread_, &attr,
      [](void* self) -> void* {
        static_cast<Worker*>(self)->run();
        return nullptr;
      },
      this);
  pthread_attr_destroy(&attr);
  if (rc != 0) throw std::system_error(rc, std::generic_category(), "starting a worker thread");
  started_ = true;
}

void Worker::join() {
  if (!started_) return;
  pthread_join(thread_, nullptr);
  started_ = false;
}

void Worker::adopt_current_thread(ThreadContext& ctx) {
  ctx.worker = this;
  ctx.tid = os_thread_id();  // before it is published: the dump names it
  context_.store(&ctx, std::memory_order_release);
  ctx.pool = &pool_;
  ctx.next_id = std::uint64_t(index_ + 1) << 40;
  ctx.slot = &rt_.idle().worker_slot(index_);
  ctx.seat_wanted = &seat_wanted_;
  if (ctx.root) ctx.root->runner.store(ctx.slot, std::memory_order_relaxed);
  spin_ = AdaptiveSpin(rt_.settings().spin_us, rt_.spin_cap_us());
  if (rt_.settings().bind && !rt_.topology().synthetic() &&
      !rt_.topology().bind_current_thread(cpu_)) {
    core::warn_once("worker-bind", "could not bind workers to CPUs; running unbound");
  }
  // After binding: this thread touches its first slab and its deque's ring,
  // and its thread_local context (touched first by the thread that created
  // this one) moves to its node.
  NumaMemory::instance().move_to_node(&ctx, sizeof ctx, node_);
  pool_.prepare();
  rt_.scheduler().rehome(index_);
  for (auto& o : rt_.observers()) o->on_worker_start(index_, cpu_);
}

// The dispatch loop: run what is ready; when nothing is, spin (AdaptiveSpin),
// then lend the CPU (lending on) or sleep until woken.
// With lending, a borrowed CPU whose owner claimed it is returned before the
// next task, and a retired CPU (DROM) is left alone.
void Worker::run() {
  ThreadContext& ctx = thread_context();
  ctx = ThreadContext{};
  ctx.generation = Runtime::generation();
  OverflowGuard::enter_thread(index_);
  adopt_current_thread(ctx);
  ctx.in_loop = true;
  ctx.may_hold = true;  // see TaskLifecycle::hold_child
  TaskLifecycle& tasks = rt_.tasks();
  LendingBridge& lending = rt_.lending();
  PollingServices& polling = rt_.polling();
  const bool lends = lending.lends();
  for (;;) {
    if (must_leave()) {
      // A resumed task waits for this CPU: it runs first (as in Nanos6).
      if (seat_wanted_.load(std::memory_order_relaxed)) {
        rt_.workers().spares().yield_seat(ctx, nullptr, nullptr);
        continue;
      }
      park(ctx);
      if (rt_.stopping()) break;
      continue;
    }
    if (tasks.run_one(ctx)) {
      polling.poll_if_active();  // a task boundary (polling_services.hpp)
      if (lends) {               // task boundary: borrow for queued work, apply DROM
        lending.maybe_acquire();
        lending.poll_drom();
      }
      continue;
    }
    // Nothing of that parent's next: count them now. Completing the parent
    // may release a successor into this thread's immediate-successor slot.
    tasks.flush_held(ctx);
    if (ctx.next) continue;
    if (rt_.stopping()) break;
    idle_wait(ctx);
  }
  tasks.flush_held(ctx);
  tasks.flush_private(ctx);
  for (auto& o : rt_.observers()) o->on_worker_stop(index_);
  TaskPool::flush_remote_frees();
  OverflowGuard::leave_thread();
  // Unpublished before the reset, and a dump that loaded it first is waited
  // for (state_dump.cpp holds g_dump_readers while it reads a context).
  context_.store(nullptr, std::memory_order_seq_cst);
  while (g_dump_readers.load(std::memory_order_seq_cst) != 0) core::cpu_relax();
  ctx = ThreadContext{};
}

bool Worker::must_leave() {
  if (retired_.load(std::memory_order_relaxed) || resting_.load(std::memory_order_relaxed) ||
      seat_wanted_.load(std::memory_order_relaxed))
    return true;
  LendingBridge& lending = rt_.lending();
  return lending.lends() && lending.cpu_manager().must_return(cpu_);
}

// Spins; then lends the CPU and parks (lending on and the manager agrees),
// or sleeps until a producer wakes us.
void Worker::idle_wait(ThreadContext& ctx) {
  auto& sched = rt_.scheduler();
  // A worker the energy policy rests stops spinning at once: idling that
  // core is the point.
  auto stop_or_rest = [&] {
    return rt_.stopping() || resting_.load(std::memory_order_relaxed) ||
           seat_wanted_.load(std::memory_order_relaxed);
  };
  LendingBridge& lending = rt_.lending();
  lending.poll_drom();
  if (ctx.next) return;  // a task waits in this thread's own slot
  // An idle worker runs the polling services; they may make tasks ready,
  // and complete tasks (an event released) whose parents' counts this
  // worker then holds: those go out before it sleeps (hold_child).
  if (rt_.polling().active()) {
    const bool polled = rt_.polling().poll();
    rt_.tasks().flush_held(ctx);
    if (polled && sched.probe(index_)) return;
  }
  if (!ctx.searching) {  // a push seeing a looker leaves the sleepers alone (Idle)
    ctx.searching = true;
    rt_.idle().begin_search();
  }
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + spin_.budget();
  const auto learn = [&] {
    const auto now = std::chrono::steady_clock::now();
    spin_.learn(now - start, !stop_or_rest());
    return now;
  };
  // Spinning polls a bounded number of queues (ReadyQueues::probe), not all.
  if (spin_until([&] { return sched.probe(index_) || stop_or_rest(); }, deadline,
                 rt_.oversubscribed())) {
    spin_ns_ += std::uint64_t((learn() - start).count());
    return;
  }
  const auto slept_at = std::chrono::steady_clock::now();
  spin_ns_ += std::uint64_t((slept_at - start).count());
  rt_.tasks().end_search(ctx, false);  // before the exact check below: see Idle
  TaskPool::flush_remote_frees();
  if (lending.lends() && lending.cpu_manager().release_idle(cpu_)) return park(ctx);
  if (rt_.observed())
    for (auto& o : rt_.observers()) o->on_idle(index_, true, now_ns());
  // The exact check (every queue) once, just before sleeping.
  // Chosen by a push: the pusher counted this worker as looking.
  // Without lending nothing timed is due: sleep until woken (idle.hpp),
  // unless a polling service must run (polling_services.hpp).
  ctx.searching = rt_.idle().sleep_unless(
      *ctx.slot, [&] { return ctx.next || sched.available_to(index_) > 0 || stop_or_rest(); },
      rt_.polling().sleep_cap(lending.lends() ? Idle::kPollNs : Idle::kNoLimit));
  if (rt_.observed())
    for (auto& o : rt_.observers()) o->on_idle(index_, false, now_ns());
  sleep_ns_ += std::uint64_t((learn() - slept_at).count());
}

// The CPU is lent, returned or retired: wait until this process may use it
// again. Work that arrives meanwhile makes the runtime reclaim or borrow.
void Worker::park(ThreadContext& ctx) {
  TaskLifecycle& tasks = rt_.tasks();
  LendingBridge& lending = rt_.lending();
  if (ctx.searching) tasks.end_search(ctx, true);  // someone else looks meanwhile
  tasks.flush_held(ctx);
  tasks.flush_private(ctx);  // never strand tasks on a CPU we give away
  parked_.store(true, std::memory_order_relaxed);
  lending.note_parked(+1);
  if (rt_.observed())
    for (auto& o : rt_.observers()) o->on_parked(index_, true, now_ns());
  auto& cm = lending.cpu_manager();
  // Rested by the energy policy: lend the CPU meanwhile (a retired CPU is
  // no longer ours to lend).
  if (resting_.load() && !retired_.load() && lending.lends()) cm.release_idle(cpu_);
  while (!rt_.stopping() && (retired_.load() || resting_.load() || !cm.usable(cpu_)))
    cm.wait_for_change(cpu_, 50000);
  if (rt_.observed())
    for (auto& o : rt_.observers()) o->on_parked(index_, false, now_ns());
  lending.note_parked(-1);
  parked_.store(false, std::memory_order_relaxed);
}

}  // namespace joule::engine
