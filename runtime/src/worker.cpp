#include "worker.hpp"

#include <chrono>
#include <cstdio>

#include "runtime.hpp"

namespace joule::rt {

void Worker::start() {
  thread_ = std::thread([this] { run(); });
}

void Worker::join() {
  if (thread_.joinable()) thread_.join();
}

void Worker::adopt_current_thread(ThreadContext& ctx) {
  ctx.worker = this;
  ctx.pool = &pool_;
  ctx.next_id = std::uint64_t(index_ + 1) << 40;
  if (rt_.config().workers.bind && !rt_.topology().bind_current_thread(cpu_)) {
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
      std::fprintf(stderr, "joule: warning: could not bind workers to CPUs; running unbound\n");
  }
  for (auto& o : rt_.observers()) o->on_worker_start(index_, cpu_);
}

// The dispatch loop: run what is ready; when nothing is, spin for the
// configured time and then sleep until a producer wakes us.
void Worker::run() {
  ThreadContext& ctx = thread_context();
  ctx = ThreadContext{};
  ctx.generation = Runtime::generation();
  adopt_current_thread(ctx);
  ctx.in_loop = true;
  for (;;) {
    if (rt_.run_one(ctx)) continue;
    if (rt_.stopping()) break;
    idle_wait(ctx);
  }
  for (auto& o : rt_.observers()) o->on_worker_stop(index_);
  ctx = ThreadContext{};
}

void Worker::idle_wait(ThreadContext&) {
  auto& sched = rt_.scheduler();
  auto work_or_stop = [&] { return sched.size() > 0 || rt_.stopping(); };
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::microseconds(rt_.config().workers.spin_us);
  do {
    for (int i = 0; i < 64; ++i) {
      if (work_or_stop()) return;
      cpu_relax();
    }
  } while (std::chrono::steady_clock::now() < deadline);
  if (rt_.observed())
    for (auto& o : rt_.observers()) o->on_idle(index_, true, now_ns());
  rt_.idle().sleep_unless(work_or_stop);
  if (rt_.observed())
    for (auto& o : rt_.observers()) o->on_idle(index_, false, now_ns());
}

}  // namespace joule::rt
