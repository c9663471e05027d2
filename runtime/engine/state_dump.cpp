// The state dump's text (state_dump.hpp).
#include "state_dump.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime.hpp"
#include "state_dump_text.hpp"

namespace joule::engine {

using namespace dump_text;
namespace {

// What worker i's thread is doing now, from what it publishes.
std::string worker_state(Runtime& rt, int i, const ThreadContext* ctx, const ThreadView& tv) {
  const Worker* w = rt.workers().worker(i);
  if (w->parked()) return "parked (its CPU is lent, retired by DROM or rested)";
  if (!ctx) return "starting";
  if (!tv.waits.empty() || tv.current) return thread_state(tv);
  std::string s;
  if (rt.idle().worker_slot(i).sleeping.load(std::memory_order_relaxed)) {
    s = "asleep (no ready task)";
    // Work it may take while it sleeps is what a missed wake-up looks like
    // (internals-scheduling.md, "Idle and waking"): say what the waker saw.
    const queues::ReadyQueues::ShardCounts c = rt.scheduler().counts_of(i);
    if (rt.scheduler().available_to(i) > 0 || rt.scheduler().size_of(i) > 0)
      s = "asleep, but work it may take is queued (a missed wake-up?): its queue (own deque " +
          std::to_string(c.own) + ", shared " + std::to_string(c.shared) + ", pinned " +
          std::to_string(c.pinned) + ") " + (rt.scheduler().marked(i) ? "marked" : "NOT marked") +
          " in the work summary, its sleeper bit " +
          (rt.idle().unclaimed(i) ? "unclaimed" : "claimed by a wake not yet taken");
  } else {
    s = ctx->root ? "in the thread's own code, outside any task" : "looking for work";
  }
  return s;
}

void write_workers(std::ostream& os, Runtime& rt, int sample_ms) {
  Workforce& workers = rt.workers();
  const int n = workers.count();
  std::vector<std::uint64_t> before(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) before[std::size_t(i)] = workers.worker(i)->completed();
  if (sample_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sample_ms));
  for (int i = 0; i < n; ++i) {
    const Worker* w = workers.worker(i);
    const std::uint64_t done = w->completed();
    // Held while the context is read: a worker leaving its loop does not
    // reset it meanwhile (Worker::run).
    g_dump_readers.fetch_add(1, std::memory_order_seq_cst);
    const ThreadContext* ctx = w->context();
    const ThreadView tv = ctx ? view_thread(*ctx) : ThreadView{};
    os << "  worker " << i << " (CPU " << w->cpu() << tid_text(tv.tid)
       << (i >= workers.owned() ? ", a guest" : "")
       << (i == 0 ? ", the thread that started joule" : "") << "): " << worker_state(rt, i, ctx, tv)
       << "\n";
    g_dump_readers.fetch_sub(1, std::memory_order_release);
    write_outer_waits(os, tv, "    ");
    os << "    " << done << " tasks completed, " << rt.scheduler().size_of(i) << " queued here";
    if (sample_ms > 0)
      os << ", " << (done - before[std::size_t(i)]) << " completed in the last " << sample_ms
         << " ms";
    os << "\n";
  }
}

void write_blocked(std::ostream& os, Runtime& rt, std::uint64_t now) {
  std::vector<Blocking::Blocked> blocked;
  if (!rt.blocking().blocked_now(blocked)) {
    os << "blocked tasks (Nanos6 / ALPI): (busy) the list was being changed; not read\n";
    return;
  }
  os << "blocked tasks (Nanos6 / ALPI): " << blocked.size() << "\n";
  for (std::size_t k = 0; k < blocked.size() && k < kListed; ++k) {
    const Blocking::Blocked& b = blocked[k];
    os << "  " << listed_task(b) << ", blocked for " << seconds(now - std::min(now, b.since_ns))
       << " on " << (b.worker >= 0 ? "worker " + std::to_string(b.worker) : std::string("a thread"))
       << "; it waits for nanos6_unblock_task / alpi_task_unblock\n";
  }
  if (blocked.size() > kListed) os << "  ... and " << blocked.size() - kListed << " more\n";
}

// Suspended through ALPI until a time or their events: no thread holds
// them, a polling service puts them back (Blocking::poll_suspended).
void write_suspended(std::ostream& os, Runtime& rt, std::uint64_t now) {
  std::vector<Blocking::Suspended> suspended;
  if (!rt.blocking().suspended_now(suspended)) {
    os << "suspended tasks (ALPI): (busy) the list was being changed; not read\n";
    return;
  }
  os << "suspended tasks (ALPI), waiting for a time or their events: " << suspended.size() << "\n";
  for (std::size_t k = 0; k < suspended.size() && k < kListed; ++k)
    os << "  " << listed_task(suspended[k].task) << ": " << suspended_text(suspended[k], now)
       << "\n";
  if (suspended.size() > kListed) os << "  ... and " << suspended.size() - kListed << " more\n";
}

}  // namespace

std::string state_dump(Runtime& rt, int sample_ms) {
  std::ostringstream os;
  TaskLifecycle& tasks = rt.tasks();
  os << "== joule state of process " << ::getpid() << " ==\n"
     << "tasks: " << tasks.in_flight() << " created and not finished, " << tasks.completed_total()
     << " completed; " << rt.scheduler().size() << " ready in the queues\n"
     << "workers: " << rt.workers().owned() << " on the process's CPUs, "
     << rt.workers().count() - rt.workers().owned() << " on borrowed CPUs\n";
  os << "idle: " << rt.idle().sleepers() << " threads asleep, " << rt.idle().searching()
     << " threads looking for work\n";
  write_workers(os, rt, sample_ms);
  const std::uint64_t now = now_ns();
  write_blocked(os, rt, now);
  write_suspended(os, rt, now);
  write_dependencies(os, gather(rt));
  write_spares(os, rt);
  LendingBridge& lending = rt.lending();
  os << "lending: " << (lending.lends() ? "on" : "off") << " (CPU manager "
     << lending.cpu_manager().name() << ")\n";
  write_polling(os, rt);
  return os.str();
}

}  // namespace joule::engine
