// A task body that recurses past its stack dies of SIGSEGV like any C code;
// this says so first. One SIGSEGV handler for the process (installed when
// workers start, only over the default action or joule's crash restore: a
// program's own handler is left alone), run on an alternate signal stack
// that each worker thread gets (sigaltstack(2): the overflowed stack has no
// room for a handler). A fault address just below the stack the thread runs
// on (its guard page: the worker's pthread stack or a stack segment,
// stack_segments.hpp) prints one line naming the worker, the task (its id
// and label, as the state dump names it: the engine records no source
// location), the stack size and the settings; then the fault goes to what was there before (the
// default action: the process dies of SIGSEGV).
#pragma once

namespace joule::engine {

class OverflowGuard {
 public:
  // Once per process; later calls do nothing.
  static void install() noexcept;
  // The calling worker thread's alternate stack (unless it has one already
  // or the handler is not installed); leave_thread removes it.
  static void enter_thread(int worker) noexcept;
  static void leave_thread() noexcept;
};

}  // namespace joule::engine
