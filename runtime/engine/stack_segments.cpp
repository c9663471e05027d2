#include "stack_segments.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define JOULE_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JOULE_FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define JOULE_FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define JOULE_FIBER_TSAN 1
#endif
#endif
#ifdef JOULE_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#endif
#ifdef JOULE_FIBER_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace joule::engine {
namespace {

constexpr int kCached = 4;  // free segments a thread keeps for reuse

std::atomic<std::size_t> g_segment_bytes{std::size_t(8) << 20};

struct Segment {
  char* map = nullptr;  // the mapping; its first page is the guard
  std::size_t bytes = 0;
};

// The stack this thread runs on now, and its cached segments.
struct ThreadStacks {
  char* lo = nullptr;
  char* hi = nullptr;
  bool known = false;
  int depth = 0;
  std::vector<Segment> free;
  ~ThreadStacks() {
    for (const Segment& s : free) munmap(s.map, s.bytes);
  }
};
thread_local ThreadStacks t_stacks;

// The reserve's top on the stack this thread runs on now: a frame at or
// above it is not low, whatever stack it is on, so low() answers most
// calls (every task body) with one compare against a static-TLS word
// instead of a lookup of t_stacks (a call to __tls_get_addr in a shared
// library). The maximum until the thread's stack is known: the first call
// takes the full path; 0 once known to be unknowable (never low).
[[gnu::tls_model("initial-exec")]] constinit thread_local std::uintptr_t t_floor = UINTPTR_MAX;

std::size_t reserve_of(const ThreadStacks& s) {
  return std::min<std::size_t>(256u << 10, std::size_t(s.hi - s.lo) / 4);
}

void set_stack(ThreadStacks& s, char* lo, char* hi) {
  s.lo = lo, s.hi = hi;
  t_floor = lo ? reinterpret_cast<std::uintptr_t>(lo) + reserve_of(s) : 0;
}

void learn_thread_stack(ThreadStacks& s) {
  s.known = true;
  set_stack(s, nullptr, nullptr);
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* addr = nullptr;
  std::size_t size = 0;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr)
    set_stack(s, static_cast<char*>(addr), static_cast<char*>(addr) + size);
  pthread_attr_destroy(&attr);
}

std::size_t page_bytes() { return std::size_t(sysconf(_SC_PAGESIZE)); }

Segment take_segment(ThreadStacks& t) {
  if (!t.free.empty()) {
    const Segment s = t.free.back();
    t.free.pop_back();
    if (s.bytes == g_segment_bytes.load(std::memory_order_relaxed) + page_bytes()) return s;
    munmap(s.map, s.bytes);
  }
  Segment s;
  s.bytes = g_segment_bytes.load(std::memory_order_relaxed) + page_bytes();
  void* m = mmap(nullptr, s.bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (m == MAP_FAILED) return {};
  s.map = static_cast<char*>(m);
  mprotect(s.map, page_bytes(), PROT_NONE);  // an overflow faults instead of corrupting
  return s;
}

void give_back(ThreadStacks& t, const Segment& s) {
  if (int(t.free.size()) < kCached)
    t.free.push_back(s);
  else
    munmap(s.map, s.bytes);
}

[[noreturn]] void too_deep(int depth, const char* why) {
  std::fprintf(stderr,
               "joule: tasks are nested too deeply on one thread: %d stack segments of %zu KiB "
               "in use (%s); each task that runs while its parent waits on the same thread "
               "needs the parent's frames kept (JOULE_STACK_SIZE sets the segment size)\n",
               depth, g_segment_bytes.load() >> 10, why);
  std::abort();
}

// What the segment runs, and how to get back.
struct Call {
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
  ucontext_t back{}, here{};
  void* fake_stack = nullptr;  // ASan's, for the way back
  const void* back_bottom = nullptr;
  std::size_t back_size = 0;
  void* back_fiber = nullptr;  // TSan's
};
thread_local Call* t_call = nullptr;

void trampoline() {
  Call* c = t_call;
#ifdef JOULE_FIBER_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &c->back_bottom, &c->back_size);
#endif
  c->fn(c->arg);
#ifdef JOULE_FIBER_ASAN
  __sanitizer_start_switch_fiber(nullptr, c->back_bottom, c->back_size);
#endif
#ifdef JOULE_FIBER_TSAN
  __tsan_switch_to_fiber(c->back_fiber, 0);
#endif
  swapcontext(&c->here, &c->back);
}

}  // namespace

void StackSegments::set_segment_bytes(std::size_t bytes) noexcept {
  g_segment_bytes.store(std::max<std::size_t>(bytes, 64u << 10), std::memory_order_relaxed);
}

std::size_t StackSegments::segment_bytes() noexcept {
  return g_segment_bytes.load(std::memory_order_relaxed);
}

int StackSegments::depth() noexcept { return t_stacks.depth; }

// Below the stack: the guard page, or further down within the reach of a
// large frame that jumped over it.
bool StackSegments::in_guard(const void* addr, std::size_t* stack_bytes) noexcept {
  constexpr std::size_t kReach = std::size_t(64) << 10;
  const ThreadStacks& s = t_stacks;
  if (!s.known || !s.lo) return false;
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  const auto lo = reinterpret_cast<std::uintptr_t>(s.lo);
  if (a >= lo || lo - a > kReach) return false;
  *stack_bytes = std::size_t(s.hi - s.lo);
  return true;
}

// The frame address, not a local's: under ASan locals may live elsewhere.
// Below the floor: the stack may be unknown yet, or the frame on another
// stack (a fiber of the program's own), which is never low.
bool StackSegments::low() noexcept {
  const char* sp = static_cast<const char*>(__builtin_frame_address(0));
  if (reinterpret_cast<std::uintptr_t>(sp) >= t_floor) [[likely]]
    return false;
  ThreadStacks& s = t_stacks;
  if (!s.known) learn_thread_stack(s);
  if (!s.lo || sp < s.lo || sp > s.hi) return false;
  return std::size_t(sp - s.lo) < reserve_of(s);
}

void StackSegments::run(void (*fn)(void*), void* arg) {
  ThreadStacks& t = t_stacks;
  if (!t.known) learn_thread_stack(t);  // the way back restores it
  if (t.depth >= kMaxSegments) too_deep(t.depth, "the limit");
  const Segment seg = take_segment(t);
  if (!seg.map) too_deep(t.depth, "no memory for another");
  Call call;
  call.fn = fn, call.arg = arg;
  getcontext(&call.here);
  call.here.uc_stack.ss_sp = seg.map + page_bytes();
  call.here.uc_stack.ss_size = seg.bytes - page_bytes();
  call.here.uc_link = nullptr;
  makecontext(&call.here, trampoline, 0);
  Call* outer = t_call;
  char* lo = t.lo;
  char* hi = t.hi;
  t_call = &call;
  set_stack(t, seg.map + page_bytes(), seg.map + seg.bytes);
  ++t.depth;
#ifdef JOULE_FIBER_TSAN
  call.back_fiber = __tsan_get_current_fiber();
  void* fiber = __tsan_create_fiber(0);
  __tsan_switch_to_fiber(fiber, 0);
#endif
#ifdef JOULE_FIBER_ASAN
  __sanitizer_start_switch_fiber(&call.fake_stack, call.here.uc_stack.ss_sp,
                                 call.here.uc_stack.ss_size);
#endif
  swapcontext(&call.back, &call.here);
#ifdef JOULE_FIBER_ASAN
  __sanitizer_finish_switch_fiber(call.fake_stack, nullptr, nullptr);
#endif
#ifdef JOULE_FIBER_TSAN
  __tsan_destroy_fiber(fiber);
#endif
  --t.depth;
  set_stack(t, lo, hi);
  t_call = outer;
  give_back(t, seg);
}

}  // namespace joule::engine
