// The dump listener (dump_listener.hpp).
#include "dump_listener.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "dump_endpoint.hpp"
#include "log.hpp"
#include "runtime.hpp"
#include "state_dump.hpp"

namespace joule::engine {
namespace {

constexpr int kSampleMs = 200;  // how long a dump watches the completion counters

// The SIGUSR2 handler's eventfd (one runtime at a time) and the action it
// replaced, put back when the listener stops.
std::atomic<int> g_signal_fd{-1};
struct sigaction g_previous_usr2 {};

void on_usr2(int) {
  const int saved = errno;  // write(2) may change it under the interrupted code
  const int fd = g_signal_fd.load(std::memory_order_relaxed);
  const std::uint64_t one = 1;
  if (fd >= 0) [[maybe_unused]]
    const ssize_t n = ::write(fd, &one, sizeof one);
  errno = saved;
}

void write_all(int fd, const std::string& text) {
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::send(fd, text.data() + off, text.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the reader went away
    off += std::size_t(n);
  }
}

}  // namespace

void DumpListener::start(bool endpoint, int watchdog_s, bool on_signal) {
  watchdog_s_ = watchdog_s;
  if (endpoint && !open_endpoint())
    core::warn_once("dump-endpoint", std::string("cannot listen for joule-ctl dump (") +
                                         std::strerror(errno) +
                                         "); set JOULE_DUMP=no to silence this");
  if (on_signal) catch_signal();
  if (listen_fd_ < 0 && watchdog_s_ == 0 && signal_fd_ < 0) return;
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    release_signal();
    return;
  }
  thread_ = std::thread([this] { run(); });
}

// Only over the default action: a program's own SIGUSR2 handler stays.
bool DumpListener::catch_signal() {
  struct sigaction old {};
  if (::sigaction(SIGUSR2, nullptr, &old) != 0 || old.sa_handler != SIG_DFL ||
      (old.sa_flags & SA_SIGINFO)) {
    core::warn_once("dump-signal",
                    "JOULE_DUMP_SIGNAL: the program handles SIGUSR2 itself; use joule-ctl dump");
    return false;
  }
  signal_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (signal_fd_ < 0) return false;
  g_signal_fd.store(signal_fd_);
  struct sigaction sa {};
  sa.sa_handler = on_usr2;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (::sigaction(SIGUSR2, &sa, &g_previous_usr2) == 0) return true;
  release_signal();
  return false;
}

void DumpListener::release_signal() {
  if (signal_fd_ < 0) return;
  struct sigaction current {};
  if (::sigaction(SIGUSR2, nullptr, &current) == 0 && current.sa_handler == on_usr2)
    ::sigaction(SIGUSR2, &g_previous_usr2, nullptr);
  g_signal_fd.store(-1);
  ::close(signal_fd_);
  signal_fd_ = -1;
}

void DumpListener::stop() {
  if (!thread_.joinable()) return;
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
  thread_.join();
  release_signal();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  ::close(wake_fd_);
  listen_fd_ = wake_fd_ = -1;
}

bool DumpListener::open_endpoint() {
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return false;
  sockaddr_un addr;
  const socklen_t len = core::dump_endpoint_address(::getpid(), addr);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(listen_fd_, 4) != 0) {
    const int saved = errno;
    ::close(listen_fd_);
    listen_fd_ = -1;
    errno = saved;
    return false;
  }
  return true;
}

void DumpListener::run() {
  // A negative fd is skipped by poll(2): the endpoint and the signal are optional.
  pollfd fds[3] = {{wake_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}, {signal_fd_, POLLIN, 0}};
  const int timeout_ms = watchdog_s_ > 0 ? 1000 : -1;
  last_completed_ = rt_.tasks().completed_total();
  for (;;) {
    const int n = ::poll(fds, 3, timeout_ms);
    if (n < 0 && errno != EINTR) return;
    if (fds[0].revents) return;  // stop()
    if (fds[2].revents & POLLIN) {
      std::uint64_t count = 0;
      [[maybe_unused]] const ssize_t r = ::read(signal_fd_, &count, sizeof count);
      const std::string text =
          "joule: SIGUSR2 (JOULE_DUMP_SIGNAL): the state follows\n" + state_dump(rt_, kSampleMs);
      std::fputs(text.c_str(), stderr);
    }
    if (fds[1].revents & POLLIN) {
      const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client >= 0) {
        answer(client);
        ::close(client);
      }
    }
    if (n == 0) watchdog_tick();
  }
}

// Only the process's own user, or root, may read its state: task labels
// and what the program waits for are the user's business.
void DumpListener::answer(int client) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(client, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return;
  if (cred.uid != 0 && cred.uid != ::geteuid()) {
    write_all(client, "joule: uid " + std::to_string(cred.uid) +
                          " may not read the state of a process of uid " +
                          std::to_string(::geteuid()) + " (only its user and root may)\n");
    return;
  }
  write_all(client, state_dump(rt_, kSampleMs));
}

// Once a second while the watchdog is on: a stall is tasks in flight and no
// completion, and is reported once until tasks complete again.
void DumpListener::watchdog_tick() {
  const std::uint64_t done = rt_.tasks().completed_total();
  if (done != last_completed_ || rt_.tasks().in_flight() <= 0) {
    last_completed_ = done;
    stalled_s_ = 0;
    reported_ = false;
    return;
  }
  if (++stalled_s_ < watchdog_s_ || reported_) return;
  reported_ = true;
  const std::string text = "joule: watchdog: no task completed for " + std::to_string(stalled_s_) +
                           " s while tasks are in flight (JOULE_WATCHDOG); the state follows\n" +
                           state_dump(rt_, kSampleMs);
  std::fputs(text.c_str(), stderr);
}

}  // namespace joule::engine
