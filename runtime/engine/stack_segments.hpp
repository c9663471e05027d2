// Task nesting that outgrows a thread's stack. A thread runs nested task
// bodies on its own stack: a taskwait helps by running a child, which
// waits in turn (nested spawn + taskwait, 40 000 levels), and the serial
// inline mode runs every spawn at once (deferred recursive spawns become
// plain recursion). Past a reserve, the next task body runs on a fresh
// stack segment (mmap'd, a guard page below it) entered with swapcontext,
// so nesting is bounded by memory, not by the thread's stack: the
// "segmented stacks" idea of Go's early runtimes and GCC's -fsplit-stack,
// applied at task boundaries only (the body itself never moves).
//
// Segments are JOULE_STACK_SIZE bytes (default 8 MiB), cached per thread;
// a thread that would need more than kMaxSegments of them stops the
// program with a message that names the nesting and the setting.
#pragma once

#include <cstddef>

namespace joule::engine {

class StackSegments {
 public:
  static constexpr int kMaxSegments = 1024;

  // Bytes of each segment (JOULE_STACK_SIZE, set at runtime start).
  static void set_segment_bytes(std::size_t bytes) noexcept;
  static std::size_t segment_bytes() noexcept;
  // Less than the reserve left on the stack this thread runs on now.
  static bool low() noexcept;
  // fn(arg) on a fresh segment; returns when it does. fn must not throw.
  static void run(void (*fn)(void*), void* arg);
  // Segments this thread has entered and not left (tests, reports).
  static int depth() noexcept;
  // Whether addr lies in the guard below the stack this thread runs on now
  // (its thread stack once a task body ran on it, or its current segment),
  // and that stack's size: a fault there is a stack overflow. For a signal
  // handler: reads this thread's state only.
  static bool in_guard(const void* addr, std::size_t* stack_bytes) noexcept;
};

}  // namespace joule::engine
