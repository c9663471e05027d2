#include "overflow_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>

#include "fault_handlers.hpp"
#include "stack_segments.hpp"
#include "thread_context.hpp"

namespace joule::engine {
namespace {

constexpr std::size_t kAltStackBytes = std::size_t(64) << 10;

std::atomic<bool> g_tried{false};
std::atomic<bool> g_installed{false};
struct sigaction g_previous {};

// Trivially destructible, so a handler may read them (no lazy TLS init).
thread_local int t_worker = -1;
thread_local void* t_alt_stack = nullptr;

// Appends the decimal digits of v at p (no stdio in a handler).
char* put_uint(char* p, unsigned long v) noexcept {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = char('0' + v % 10);
    v /= 10;
  } while (v && n < 24);
  while (n) *p++ = digits[--n];
  return p;
}

// At most `room` characters of s (a label may be long).
char* put_text(char* p, const char* s, std::size_t room = 64) noexcept {
  while (*s && room--) *p++ = *s++;
  return p;
}

// The task this thread runs, as the state dump names it: "task 2.17
// \"label\"" (the creating thread's slot and sequence, state_dump.cpp).
// The thread context is constinit initial-exec TLS: safe to read here.
char* put_task(char* p) noexcept {
  const Task* t = thread_context().current;
  if (!t || t->has(task_flag::root)) return put_text(p, ", outside any task");
  p = put_text(p, ", task ");
  p = put_uint(p, t->id >> 40);
  *p++ = '.';
  p = put_uint(p, t->id & ((std::uint64_t(1) << 40) - 1));
  if (!t->label) return put_text(p, " (no label)");
  p = put_text(p, " \"");
  p = put_text(p, t->label);
  return put_text(p, "\"");
}

void report(int worker, std::size_t stack_bytes) noexcept {
  char line[256];
  char* p = put_text(line, "joule: stack overflow in a task body on worker ");
  p = put_uint(p, unsigned(worker));
  p = put_task(p);
  p = put_text(p, " (stack ");
  p = put_uint(p, stack_bytes >> 10);
  p = put_text(p, " KiB; raise JOULE_STACK_SIZE or OMP_STACKSIZE)\n");
  const ssize_t ignored = ::write(STDERR_FILENO, line, std::size_t(p - line));
  (void)ignored;
}

void on_segv(int sig, siginfo_t* info, void*) {
  std::size_t stack_bytes = 0;
  if (info && info->si_code > 0 && t_worker >= 0 &&
      StackSegments::in_guard(info->si_addr, &stack_bytes))
    report(t_worker, stack_bytes);
  core::chain_fault(sig, info, g_previous);
}

}  // namespace

void OverflowGuard::install() noexcept {
  if (g_tried.exchange(true)) return;
  struct sigaction old {};
  if (::sigaction(SIGSEGV, nullptr, &old) != 0 || !core::replaceable_fault_action(old)) return;
  core::note_own_fault_handler(on_segv);
  struct sigaction sa {};
  sa.sa_sigaction = on_segv;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  if (::sigaction(SIGSEGV, &sa, &g_previous) == 0) g_installed.store(true);
}

void OverflowGuard::enter_thread(int worker) noexcept {
  t_worker = worker;
  if (!g_installed.load() || t_alt_stack) return;
  stack_t current{};
  if (::sigaltstack(nullptr, &current) != 0 || !(current.ss_flags & SS_DISABLE)) return;
  void* mem = ::mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (mem == MAP_FAILED) return;
  stack_t alt{};
  alt.ss_sp = mem;
  alt.ss_size = kAltStackBytes;
  if (::sigaltstack(&alt, nullptr) != 0) {
    ::munmap(mem, kAltStackBytes);
    return;
  }
  t_alt_stack = mem;
}

void OverflowGuard::leave_thread() noexcept {
  t_worker = -1;
  if (!t_alt_stack) return;
  stack_t off{};
  off.ss_flags = SS_DISABLE;
  ::sigaltstack(&off, nullptr);
  ::munmap(t_alt_stack, kAltStackBytes);
  t_alt_stack = nullptr;
}

}  // namespace joule::engine
