// joule's own handlers of fault signals. Two parts of joule may handle
// SIGSEGV: the engine reports a task body's stack overflow, the platform
// layer puts CPU settings back before the process dies. Each installs itself
// only over the default action or over the other (a program's own handler
// is left alone), chains to what it replaced, and runs on the alternate
// signal stack (sigaltstack(2)), the only stack left after an overflow. This
// is where they recognise each other without naming each other's layer.
#pragma once

#include <signal.h>

#include <atomic>

namespace joule::core {

using FaultHandler = void (*)(int, siginfo_t*, void*);

inline constexpr int kMaxFaultHandlers = 4;
inline std::atomic<FaultHandler> g_fault_handlers[kMaxFaultHandlers];

inline void note_own_fault_handler(FaultHandler h) noexcept {
  for (auto& slot : g_fault_handlers) {
    FaultHandler none = nullptr;
    if (slot.load() == h || slot.compare_exchange_strong(none, h)) return;
  }
}

// The default action, or a handler of joule's: safe to install over.
inline bool replaceable_fault_action(const struct sigaction& sa) noexcept {
  if (!(sa.sa_flags & SA_SIGINFO)) return sa.sa_handler == SIG_DFL;
  for (const auto& slot : g_fault_handlers)
    if (slot.load() == sa.sa_sigaction) return true;
  return false;
}

// Leaves a handler for what it replaced. A fault (si_code > 0: the kernel's)
// is left to re-execute its instruction, which faults again and reaches the
// previous handler with the true fault address; a sent signal is raised
// again, delivered when the handler returns.
inline void chain_fault(int sig, const siginfo_t* info, const struct sigaction& previous) noexcept {
  ::sigaction(sig, &previous, nullptr);
  if (!info || info->si_code <= 0) ::raise(sig);
}

}  // namespace joule::core
