// The dump listener (dump_listener.hpp).
#include "dump_listener.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

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

void DumpListener::start(bool endpoint, int watchdog_s) {
  watchdog_s_ = watchdog_s;
  if (endpoint && !open_endpoint())
    core::warn_once("dump-endpoint", std::string("cannot listen for joule-ctl dump (") +
                                         std::strerror(errno) +
                                         "); set JOULE_DUMP=no to silence this");
  if (listen_fd_ < 0 && watchdog_s_ == 0) return;
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    return;
  }
  thread_ = std::thread([this] { run(); });
}

void DumpListener::stop() {
  if (!thread_.joinable()) return;
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
  thread_.join();
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
  pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
  const nfds_t nfds = listen_fd_ >= 0 ? 2 : 1;
  const int timeout_ms = watchdog_s_ > 0 ? 1000 : -1;
  last_completed_ = rt_.tasks().completed_total();
  for (;;) {
    const int n = ::poll(fds, nfds, timeout_ms);
    if (n < 0 && errno != EINTR) return;
    if (fds[0].revents) return;  // stop()
    if (nfds > 1 && (fds[1].revents & POLLIN)) {
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
