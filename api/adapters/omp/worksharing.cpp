// How a loop's iterations are dealt out. Every loop is first turned into
// iteration numbers 0..count-1 (the entry points convert to and from the
// program's start/end/step), so signed, unsigned, up and down loops share
// one implementation of each schedule.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "joule/team.h"
#include "ompt.hpp"
#include "reduction.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

// schedule(static): n blocks as even as possible, the first `rest` one longer.
bool next_static_block(ThreadState& s, const WorkShare& w, int n, std::uint64_t* lo,
                       std::uint64_t* hi) {
  if (s.static_trip++ > 0) return false;
  const std::uint64_t per = w.count / std::uint64_t(n), rest = w.count % std::uint64_t(n);
  const auto id = std::uint64_t(s.id);
  *lo = id * per + std::min(id, rest);
  *hi = *lo + per + (id < rest ? 1 : 0);
  return *lo < *hi;
}

// schedule(static, chunk): chunks dealt round-robin, thread id first.
bool next_static_chunk(ThreadState& s, const WorkShare& w, int n, std::uint64_t* lo,
                       std::uint64_t* hi) {
  const std::uint64_t k = std::uint64_t(s.id) + s.static_trip++ * std::uint64_t(n);
  if (k >= (w.count + w.chunk - 1) / w.chunk) return false;
  *lo = k * w.chunk;
  *hi = std::min(w.count, *lo + w.chunk);
  return true;
}

bool next_dynamic(WorkShare& w, std::uint64_t* lo, std::uint64_t* hi) {
  if (w.next.load(std::memory_order_relaxed) >= w.count) return false;
  const std::uint64_t start = w.next.fetch_add(w.chunk, std::memory_order_relaxed);
  if (start >= w.count) return false;
  *lo = start;
  *hi = std::min(w.count, start + w.chunk);
  return true;
}

// Each chunk is the remaining iterations over the team size, never below `chunk`.
bool next_guided(WorkShare& w, int n, std::uint64_t* lo, std::uint64_t* hi) {
  std::uint64_t start = w.next.load(std::memory_order_relaxed);
  for (;;) {
    if (start >= w.count) return false;
    const std::uint64_t left = w.count - start;
    std::uint64_t size = std::max((left + std::uint64_t(n) - 1) / std::uint64_t(n), w.chunk);
    size = std::min(size, left);
    if (w.next.compare_exchange_weak(start, start + size, std::memory_order_relaxed)) {
      *lo = start;
      *hi = start + size;
      return true;
    }
  }
}

}  // namespace

// runtime and auto become the run-sched-var (auto: static); chunk 0 means
// the kind's default (one block for static, 1 otherwise).
int resolve_sched(int sched, std::uint64_t* chunk) {
  sched &= 0x7fffffff;  // GFS_MONOTONIC: every schedule here is monotonic anyway
  if (sched == kRuntime) {
    sched = icv().run_sched;
    *chunk = std::uint64_t(icv().run_chunk);
  }
  if (sched == kAuto) sched = kStatic;
  if (sched != kStatic && *chunk == 0) *chunk = 1;
  return sched;
}

bool loop_next(std::uint64_t* istart, std::uint64_t* iend) {
  std::uint64_t lo = 0, hi = 0;
  if (!ws_next(&lo, &hi)) return false;
  const WorkShare& w = *self().ws;
  *istart = w.base + lo * w.step;
  *iend = w.base + hi * w.step;
  return true;
}

bool loop_begin(int sched, std::uint64_t base, std::uint64_t step, std::uint64_t count,
                std::uint64_t chunk, std::uint64_t* istart, std::uint64_t* iend,
                std::uintptr_t* reductions) {
  sched = resolve_sched(sched, &chunk);
  if (ompt::on()) ompt::work_open(ompt::kWorkLoop, count);
  ws_enter([&](WorkShare& w) {
    w.sched = sched;
    w.base = base;
    w.step = step;
    w.count = count;
    w.chunk = chunk;
    if (reductions) w.red = make_workshare_reduction(reductions);
  });
  if (reductions) attach_workshare_reduction(reductions);
  return loop_next(istart, iend);
}

std::uint64_t count_signed(long start, long end, long incr) {
  if (incr > 0)
    return end > start ? (std::uint64_t(end) - std::uint64_t(start) + std::uint64_t(incr) - 1) /
                             std::uint64_t(incr)
                       : 0;
  const std::uint64_t down = 0 - std::uint64_t(incr);
  return start > end ? (std::uint64_t(start) - std::uint64_t(end) + down - 1) / down : 0;
}

std::uint64_t count_unsigned(bool up, unsigned long long start, unsigned long long end,
                             unsigned long long incr) {
  if (up) return end > start ? (end - start + incr - 1) / incr : 0;
  const unsigned long long down = 0 - incr;
  return start > end ? (start - end + down - 1) / down : 0;
}

bool ws_next(std::uint64_t* lo, std::uint64_t* hi) {
  ThreadState& s = self();
  WorkShare& w = *s.ws;
  const int n = current_team()->n;
  bool got = false;
  switch (w.sched) {
    case kStatic:
      got = w.chunk ? next_static_chunk(s, w, n, lo, hi) : next_static_block(s, w, n, lo, hi);
      break;
    case kGuided:
      got = next_guided(w, n, lo, hi);
      break;
    default:
      got = next_dynamic(w, lo, hi);
  }
  if (got) s.ordered_iter = *lo;
  return got;
}

// The `mem` argument of GOMP_loop_start, GOMP_loop_ull_start, their
// ordered and doacross forms and GOMP_sections2_start: scratch shared by
// the team (lastprivate(conditional:), inscan), *mem bytes on entry, zeroed;
// the first member to ask allocates it.
void share_mem(void** mem) {
  WorkShare* w = self().ws;
  static std::atomic<bool> lock{false};
  while (lock.exchange(true, std::memory_order_acquire)) __builtin_ia32_pause();
  if (!w->mem) {
    const std::size_t size = (reinterpret_cast<std::uintptr_t>(*mem) + 63) & ~std::size_t(63);
    w->mem = std::aligned_alloc(64, size ? size : 64);
    std::memset(w->mem, 0, size ? size : 64);
  }
  lock.store(false, std::memory_order_release);
  *mem = w->mem;
}

void ws_free_scratch(WorkShare& w) {
  std::free(w.mem);
  w.mem = nullptr;
  std::free(w.doacross.exchange(nullptr, std::memory_order_relaxed));
}

void ws_leave() {
  ThreadState& s = self();
  if (!s.ws) return;
  Team* t = current_team();
  if (s.ws->left.fetch_add(1, std::memory_order_seq_cst) + 1 == t->n) wake_team(t);
  s.ws = nullptr;
}

}  // namespace joule::omp
