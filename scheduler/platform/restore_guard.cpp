#include "restore_guard.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "sysfs.hpp"

namespace joule::platform {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGABRT, SIGHUP, SIGQUIT};
struct sigaction g_previous[NSIG];

void on_fatal_signal(int sig) {
  RestoreGuard::instance().restore_from_signal();
  // Back to what the program had, then let the signal act as it would have
  // (it is blocked in this handler, so it is delivered when we return).
  ::sigaction(sig, &g_previous[sig], nullptr);
  ::raise(sig);
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
    if (old.sa_handler == SIG_IGN) continue;  // the process would not die of it
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    ::sigaction(sig, &sa, &g_previous[sig]);
  }
  std::atexit(restore_at_exit);
}

int RestoreGuard::restore_all(std::vector<std::string>* errors) {
  std::lock_guard guard(mu_);
  int failed = restore_files(record_.files, errors);
  if (failed == 0) {
    if (state_path_[0]) ::unlink(state_path_);
    state_path_[0] = '\0';
    record_.files.clear();
    count_.store(0);
  }
  return failed;
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
  // Keep the state file when something failed: the next start retries.
  if (all && state_path_[0]) ::unlink(state_path_);
}

}  // namespace joule::platform
