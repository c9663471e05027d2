#include "restore_guard.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "cpu_owner.hpp"
#include "fault_handlers.hpp"
#include "sysfs.hpp"

namespace joule::platform {
namespace {

// Restored on, whatever the program's disposition (its handler runs after).
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGABRT, SIGHUP, SIGQUIT};
// Restored on only if they would kill the process (SIG_DFL): programs catch
// these to go on running (guard pages, JITs, notifications).
constexpr int kDeathSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGUSR1, SIGUSR2};
struct sigaction g_previous[NSIG];

void on_fatal_signal(int sig) {
  RestoreGuard::instance().restore_from_signal();
  // Back to what the program had, then let the signal act as it would have
  // (it is blocked in this handler, so it is delivered when we return; a
  // fault re-executes its instruction and faults again, now fatally).
  ::sigaction(sig, &g_previous[sig], nullptr);
  ::raise(sig);
}

void install(int sig) {
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  ::sigaction(sig, &sa, &g_previous[sig]);
}

// The death signals: on the alternate stack where a thread has one (a task
// body's stack overflow leaves no other), chaining to the engine's
// overflow report when that came first (core/fault_handlers.hpp).
void on_fatal_fault(int sig, siginfo_t* info, void*) {
  RestoreGuard::instance().restore_from_signal();
  core::chain_fault(sig, info, g_previous[sig]);
}

void install_fault(int sig) {
  core::note_own_fault_handler(on_fatal_fault);
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_fault;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  ::sigaction(sig, &sa, &g_previous[sig]);
}

// Appends the decimal digits of v at p (no stdio in a handler).
char* put_uint(char* p, unsigned v) noexcept {
  char digits[12];
  int n = 0;
  do {
    digits[n++] = char('0' + v % 10);
    v /= 10;
  } while (v && n < 12);
  while (n) *p++ = digits[--n];
  return p;
}

void restore_at_exit() { RestoreGuard::instance().restore_all(); }

bool same_raw(const char* path, const char* data, unsigned len) noexcept {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[260];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  return n == ssize_t(len) && std::memcmp(buf, data, len) == 0;
}

}  // namespace

RestoreGuard& RestoreGuard::instance() {
  static RestoreGuard* g = new RestoreGuard();  // never destroyed: handlers use it
  return *g;
}

void RestoreGuard::set_state_dir(std::string dir) {
  std::lock_guard guard(mu_);
  dir_ = std::move(dir);
}

std::string RestoreGuard::state_file_path() const {
  std::lock_guard guard(mu_);
  return state_path_;
}

bool RestoreGuard::saved(const std::string& real_path) const {
  std::lock_guard guard(mu_);
  for (const auto& f : record_.files)
    if (f.path == real_path) return true;
  return false;
}

bool RestoreGuard::save(const std::string& real_path, const std::string& original,
                        std::string* warning) {
  std::lock_guard guard(mu_);
  for (const auto& f : record_.files)
    if (f.path == real_path) return true;
  const std::size_t n = count_.load();
  if (real_path.size() >= sizeof(Slot::path) || original.size() > sizeof(Slot::data) ||
      n >= kCapacity)
    return false;
  if (!slots_) slots_.reset(new Slot[kCapacity]);
  Slot& s = slots_[n];
  std::memcpy(s.path, real_path.c_str(), real_path.size() + 1);
  std::memcpy(s.data, original.data(), original.size());
  s.len = unsigned(original.size());
  record_.files.push_back({real_path, original});
  if (record_.pid != int(::getpid())) {  // first save, or a forked child's
    record_.pid = int(::getpid());
    record_.start_time = process_start_time(record_.pid);
  }
  if (!dir_.empty()) {
    std::string error;
    if (write_state_file(dir_, record_, &error)) {
      const std::string p = dir_ + "/" + state_file_name(record_.pid);
      if (p.size() < sizeof state_path_) std::memcpy(state_path_, p.c_str(), p.size() + 1);
    } else if (warning) {
      *warning = error + " (a killed process's changes could not be repaired later)";
    }
  }
  count_.store(n + 1, std::memory_order_release);
  if (!handlers_) install_handlers();
  return true;
}

void RestoreGuard::install_handlers() {
  handlers_ = true;
  for (int sig : kSignals) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (old.sa_handler != SIG_IGN) install(sig);  // ignored: the process would not die of it
  }
  for (int sig : kDeathSignals) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (core::replaceable_fault_action(old)) install_fault(sig);
  }
  std::atexit(restore_at_exit);
}

bool RestoreGuard::claim(const std::vector<int>& cpus, const std::string& sysfs_root,
                         std::string* why) {
  std::lock_guard guard(mu_);
  if (dir_.empty()) return true;
  // A forked child owns nothing; records in another folder (the state
  // folder changed, as between tests) say nothing about this one.
  if (held_pid_ != int(::getpid()) || dir_ != owner_dir_) {
    held_count_.store(0);
    held_pid_ = int(::getpid());
  }
  std::vector<int> missing;
  const std::size_t n = held_count_.load();
  for (int c : cpus)
    if (std::find(held_cpus_.get(), held_cpus_.get() + n, c) == held_cpus_.get() + n)
      missing.push_back(c);
  if (missing.empty()) return true;
  if (n + missing.size() > kMaxHeld || dir_.size() >= sizeof owner_dir_ - 32) {
    if (why) *why = "more CPUs or a longer state folder than the owner records allow";
    return false;
  }
  const ClaimResult r = claim_cpus(dir_, missing, sysfs_root);
  if (!r.ok) {
    if (why) *why = r.why;
    return false;
  }
  if (!held_cpus_) held_cpus_.reset(new int[kMaxHeld]);
  std::memcpy(owner_dir_, dir_.c_str(), dir_.size() + 1);
  std::copy(missing.begin(), missing.end(), held_cpus_.get() + n);
  held_count_.store(n + missing.size(), std::memory_order_release);
  if (!handlers_) install_handlers();
  return true;
}

// With mu_ held.
void RestoreGuard::release_claims() {
  const std::size_t n = held_count_.load();
  if (n == 0 || held_pid_ != int(::getpid())) return;
  release_cpus(owner_dir_, std::vector<int>(held_cpus_.get(), held_cpus_.get() + n));
  held_count_.store(0);
}

int RestoreGuard::restore_all(std::vector<std::string>* errors) {
  std::lock_guard guard(mu_);
  int failed = restore_files(record_.files, errors);
  if (failed == 0) {
    if (state_path_[0]) ::unlink(state_path_);
    state_path_[0] = '\0';
    record_.files.clear();
    count_.store(0);
    release_claims();  // the originals are back: nothing left to own
  }
  return failed;
}

void RestoreGuard::unlink_owner_records_raw() const noexcept {
  const std::size_t n = held_count_.load(std::memory_order_acquire);
  if (held_pid_ != int(::getpid())) return;
  char path[sizeof owner_dir_ + 32];
  for (std::size_t i = 0; i < n; ++i) {
    char* p = path;
    for (const char* d = owner_dir_; *d;) *p++ = *d++;
    for (const char* s = "/joule-cpu"; *s;) *p++ = *s++;
    p = put_uint(p, unsigned(held_cpus_[i]));
    for (const char* s = ".owner"; *s;) *p++ = *s++;
    *p = '\0';
    ::unlink(path);
  }
}

void RestoreGuard::restore_from_signal() noexcept {
  const std::size_t n = count_.load(std::memory_order_acquire);
  for (std::size_t i = n; i-- > 0;) write_file_raw(slots_[i].path, slots_[i].data, slots_[i].len);
  bool all = true;
  for (std::size_t i = n; i-- > 0;) {
    const Slot& s = slots_[i];
    if (same_raw(s.path, s.data, s.len)) continue;
    write_file_raw(s.path, s.data, s.len);
    all = all && same_raw(s.path, s.data, s.len);
  }
  // Keep the state file and the owner records when something failed: the
  // next start (or the next owner) restores from it.
  if (!all) return;
  if (state_path_[0]) ::unlink(state_path_);
  unlink_owner_records_raw();
}

}  // namespace joule::platform
