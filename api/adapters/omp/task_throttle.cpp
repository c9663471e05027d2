// When new tasks run at once instead of being deferred: with many deferred
// tasks not started yet, every member has work for a while, and a task may
// always run at its creation; so a thread that creates tasks in a loop
// runs most of them as plain calls, not as joule tasks (libgomp does the
// same past 64 waiting tasks per team thread).
//
// The count of waiting tasks is sums of per-thread counters, each written
// by its own thread only (no atomic read-modify-write, no cache line
// written by two threads on every task): tasks made and tasks started.
// The creator reads the others' counters only every few tasks: each read
// costs the writers a cache miss, which shows in fine-grained task codes.
#include <algorithm>

#include "task.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

constexpr std::int64_t kThrottlePerMember = 64;
constexpr int kCheckEvery = 16;   // inline tasks between two reads of the counts
constexpr int kMaxDeferred = 64;  // deferred tasks between two reads, far below the limit
constexpr int kSlots = 256;       // threads with a slot of their own; the rest share the last

// 128 bytes: adjacent-line prefetchers fetch lines in pairs.
struct alignas(128) Counts {
  std::atomic<std::uint64_t> made{0};
  std::atomic<std::uint64_t> started{0};
};

Counts g_counts[kSlots];
std::atomic<int> g_used{0};

struct Local {
  Counts* counts = nullptr;
  bool shared = false;  // the last slot: increments must be atomic
  int until_check = 0;
  int inline_left = 0;  // tasks to run inline before the next read
};

[[gnu::tls_model("initial-exec")]] constinit thread_local Local t_local;

Local& local() {
  Local& l = t_local;
  if (!l.counts) {
    const int slot = std::min(g_used.fetch_add(1, std::memory_order_relaxed), kSlots - 1);
    l.counts = &g_counts[slot];
    l.shared = slot == kSlots - 1;
  }
  return l;
}

void bump(const Local& l, std::atomic<std::uint64_t>& c) {
  if (l.shared)
    c.fetch_add(1, std::memory_order_relaxed);
  else
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

std::int64_t waiting_tasks() {
  const int used = std::min(g_used.load(std::memory_order_relaxed), kSlots);
  std::uint64_t made = 0, started = 0;
  for (int i = 0; i < used; ++i) {
    started += g_counts[i].started.load(std::memory_order_relaxed);
    made += g_counts[i].made.load(std::memory_order_relaxed);
  }
  return std::int64_t(made - started);
}

}  // namespace

void count_deferred() {
  Local& l = local();
  bump(l, l.counts->made);
}

void count_started() {
  Local& l = local();
  bump(l, l.counts->started);
}

// A region's members start with fresh counts: a budget of inline tasks left
// from an earlier burst would run the new region's first tasks one by one.
void reset_throttle() {
  t_local.inline_left = 0;
  t_local.until_check = 0;
}

bool should_run_inline(bool if_clause) {
  if (!if_clause) return true;
  Local& l = t_local;
  if (l.inline_left > 0) {
    --l.inline_left;
    return true;
  }
  if (--l.until_check > 0) return false;
  const int used = g_used.load(std::memory_order_relaxed);
  const std::int64_t room = kThrottlePerMember * current_team()->n - waiting_tasks();
  if (room > 0) {
    // Each thread defers at most room / threads before it reads again, so
    // the queue cannot overshoot the limit by much; far below it, reads
    // are rare.
    l.until_check = int(std::clamp<std::int64_t>(room / std::max(used, 1), 1, kMaxDeferred));
    return false;
  }
  l.inline_left = std::max(kCheckEvery, used) - 1;  // reads stay a fraction of a miss per task
  return true;
}

}  // namespace joule::omp
