#include "task_body.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

#include <time.h>

#include "kernels.hpp"

namespace blocked {
namespace {

using Clock = std::chrono::steady_clock;

// One per thread that ran a task; only its owner writes it while tasks run.
struct alignas(64) ThreadSlot {
  std::atomic<std::int64_t> body_ns{0};
  std::atomic<std::int64_t> cpu_ns{0};
  int index = 0;
  std::vector<TraceRecord> records;
};

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<ThreadSlot>> slots;
  Clock::time_point epoch = Clock::now();
  BodyLedger::WorkerIdFn worker_id = nullptr;
  bool tracing = false;
  bool cpu_clock = false;
};

Registry& registry() {
  static Registry r;
  return r;
}

ThreadSlot& my_slot() {
  thread_local ThreadSlot* slot = nullptr;
  if (slot == nullptr) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.slots.push_back(std::make_unique<ThreadSlot>());
    slot = r.slots.back().get();
    slot->index = static_cast<int>(r.slots.size()) - 1;
  }
  return *slot;
}

void call_kernel(Kernel kernel, const Operands& ops, std::size_t bs) {
  switch (kernel) {
    case Kernel::lu0:
      return lu0(ops.inout, bs);
    case Kernel::fwd:
      return fwd(ops.in0, ops.inout, bs);
    case Kernel::bdiv:
      return bdiv(ops.in0, ops.inout, bs);
    case Kernel::bmod:
      return bmod(ops.in0, ops.in1, ops.inout, bs);
    case Kernel::potrf:
      return potrf(ops.inout, bs);
    case Kernel::trsm:
      return trsm(ops.in0, ops.inout, bs);
    case Kernel::syrk:
      return syrk(ops.in0, ops.inout, bs);
    case Kernel::gemm:
      return gemm(ops.in0, ops.in1, ops.inout, bs);
  }
}

// CPU time of the calling thread: a system call, hence only on request.
std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void add(std::atomic<std::int64_t>& total, std::int64_t ns) {
  total.store(total.load(std::memory_order_relaxed) + ns, std::memory_order_relaxed);
}

std::int64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

}  // namespace

Operands operands_of(TiledMatrix& m, const TaskDesc& task) {
  const Access a = access_of(task);
  Operands ops;
  if (a.n_in > 0) ops.in0 = m.block(a.in[0]);
  if (a.n_in > 1) ops.in1 = m.block(a.in[1]);
  ops.inout = m.block(a.inout);
  return ops;
}

void run_task(const TaskDesc& task, const Operands& ops, std::size_t bs) {
  ThreadSlot& slot = my_slot();
  const Registry& r = registry();
  const std::int64_t c0 = r.cpu_clock ? thread_cpu_ns() : 0;
  const Clock::time_point t0 = Clock::now();
  call_kernel(task.kernel, ops, bs);
  const Clock::time_point t1 = Clock::now();
  if (r.cpu_clock) add(slot.cpu_ns, thread_cpu_ns() - c0);
  const std::int64_t ns = ns_between(t0, t1);
  add(slot.body_ns, ns);
  if (r.tracing) {
    const int worker = r.worker_id ? r.worker_id() : slot.index;
    slot.records.push_back({worker, task, ns_between(r.epoch, t0), ns});
  }
}

void BodyLedger::begin_rep() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (auto& s : r.slots) {
    s->body_ns.store(0, std::memory_order_relaxed);
    s->cpu_ns.store(0, std::memory_order_relaxed);
    s->records.clear();
  }
  r.epoch = Clock::now();
}

double BodyLedger::body_seconds() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::int64_t total = 0;
  for (auto& s : r.slots) total += s->body_ns.load(std::memory_order_relaxed);
  return static_cast<double>(total) * 1e-9;
}

void BodyLedger::enable_cpu_clock() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.cpu_clock = true;
}

double BodyLedger::body_cpu_seconds() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::int64_t total = 0;
  for (auto& s : r.slots) total += s->cpu_ns.load(std::memory_order_relaxed);
  return static_cast<double>(total) * 1e-9;
}

void BodyLedger::enable_trace(WorkerIdFn worker_id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.worker_id = worker_id;
  r.tracing = true;
}

std::vector<TraceRecord> BodyLedger::trace() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<TraceRecord> all;
  for (auto& s : r.slots) all.insert(all.end(), s->records.begin(), s->records.end());
  std::sort(all.begin(), all.end(), [](const TraceRecord& a, const TraceRecord& b) {
    return a.worker != b.worker ? a.worker < b.worker : a.start_ns < b.start_ns;
  });
  return all;
}

}  // namespace blocked
