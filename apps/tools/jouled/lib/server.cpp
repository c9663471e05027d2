#include "server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace joule::service {

namespace ps = platform::service_client;

namespace {
// Tags above this are pidfds (tag - kPidTag is the fd); below, conns.
constexpr std::uint64_t kPidTag = 1ull << 32;
constexpr std::size_t kMaxPendingOut = 1 << 20;  // a client that never reads is dropped
}  // namespace

Server::Server(int listen_fd, LeaseService& leases, JobBook& jobs, int idle_timeout_s)
    : idle_timeout_s_(idle_timeout_s), listen_fd_(listen_fd), leases_(leases), jobs_(jobs) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, s);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  signal_fd_ = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  timer_fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
  itimerspec every{{10, 0}, {10, 0}};
  ::timerfd_settime(timer_fd_, 0, &every, nullptr);
  ::fcntl(listen_fd_, F_SETFL, ::fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
  add_fd(listen_fd_, std::uint64_t(std::int64_t(kListen)) & 0xffffffffull);
  add_fd(signal_fd_, std::uint64_t(std::int64_t(kSignal)) & 0xffffffffull);
  add_fd(timer_fd_, std::uint64_t(std::int64_t(kTimer)) & 0xffffffffull);
  leases_.watch = [this](int lease, int pidfd) {
    pidfd_lease_[pidfd] = lease;
    add_fd(pidfd, kPidTag + std::uint64_t(pidfd));
  };
  leases_.unwatch = [this](int pidfd) {
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, pidfd, nullptr);
    pidfd_lease_.erase(pidfd);
  };
}

Server::~Server() {
  for (auto& [fd, c] : conns_) ::close(fd);
  for (int fd : {epoll_fd_, signal_fd_, timer_fd_})
    if (fd >= 0) ::close(fd);
}

void Server::add_fd(int fd, std::uint64_t tag) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = tag;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
}

int Server::run() {
  epoll_event evs[64];
  for (;;) {
    // Woken at least every second to close idle connections.
    const int n = ::epoll_wait(epoll_fd_, evs, 64, 1000);
    if (n < 0 && errno != EINTR) {
      std::fprintf(stderr, "jouled: epoll_wait: %s\n", std::strerror(errno));
      leases_.end_all("epoll failed");
      return 1;
    }
    for (int i = 0; i < n; ++i) {
      const std::uint64_t tag = evs[i].data.u64;
      const auto low = std::int32_t(std::uint32_t(tag & 0xffffffffull));
      if (tag >= kPidTag) {
        const int pidfd = int(tag - kPidTag);
        auto it = pidfd_lease_.find(pidfd);
        if (it != pidfd_lease_.end()) leases_.process_exited(it->second);
      } else if (low == kListen) {
        accept_clients();
      } else if (low == kSignal) {
        if (!on_signal()) return 0;
      } else if (low == kTimer) {
        std::uint64_t ticks = 0;
        if (::read(timer_fd_, &ticks, sizeof ticks) > 0) jobs_.sample();
      } else {
        on_readable(low);
      }
    }
    close_idle();
  }
}

bool Server::on_signal() {
  signalfd_siginfo si{};
  while (::read(signal_fd_, &si, sizeof si) == ssize_t(sizeof si)) {
    if (si.ssi_signo == SIGHUP) {
      std::fprintf(stderr, "jouled: SIGHUP: %s\n", reload ? reload().c_str() : "nothing to reload");
      continue;
    }
    std::fprintf(stderr, "jouled: signal %u: putting every CPU back\n", si.ssi_signo);
    leases_.end_all("jouled stopped");
    return false;
  }
  return true;
}

void Server::accept_clients() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      ::close(fd);
      continue;
    }
    if (const std::string why = refusal(cred.uid); !why.empty()) {
      const std::string busy = ps::error_line(ps::kErrDenied, why).format();
      if (::send(fd, busy.data(), busy.size(), MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
        // Closing says enough.
      }
      ::close(fd);
      continue;
    }
    Conn& c = conns_[fd];
    c.fd = fd;
    c.peer = Peer{cred.pid, cred.uid, cred.gid};
    c.last_ns = monotonic_ns();
    add_fd(fd, std::uint64_t(fd));
  }
}

// Root may take any free slot and has no per-user limit; users share
// kMaxClients - kRootSlots, at most kMaxClientsPerUid each. A refusal
// touches no other connection.
std::string Server::refusal(uid_t uid) const {
  if (int(conns_.size()) >= kMaxClients)
    return "too many clients (" + std::to_string(kMaxClients) + " in all)";
  if (uid == 0) return "";
  int users = 0, same_uid = 0;
  for (const auto& [fd, c] : conns_) {
    users += c.peer.uid != 0;
    same_uid += c.peer.uid == uid;
  }
  if (same_uid >= kMaxClientsPerUid)
    return "too many clients of uid " + std::to_string(uid) + " (" +
           std::to_string(kMaxClientsPerUid) + " per user)";
  if (users >= kMaxClients - kRootSlots)
    return "too many clients (" + std::to_string(kMaxClients - kRootSlots) + " slots for users; " +
           std::to_string(kRootSlots) + " more are kept for root)";
  return "";
}

// At most every 250 ms: connections without a lease idle for the timeout.
void Server::close_idle() {
  const std::int64_t now = monotonic_ns();
  if (now - last_sweep_ns_ < 250000000) return;
  last_sweep_ns_ = now;
  const std::int64_t limit = std::int64_t(idle_timeout_s_) * 1000000000;
  std::vector<int> idle;
  for (const auto& [fd, c] : conns_)
    if (now - c.last_ns >= limit && !leases_.has_lease(fd)) idle.push_back(fd);
  const std::string bye =
      ps::error_line(ps::kErrState, "idle for " + std::to_string(idle_timeout_s_) +
                                        " s without a lease (jouled --idle-timeout); closing")
          .format();
  for (int fd : idle) {
    auto it = conns_.find(fd);
    if (it == conns_.end()) continue;
    send(it->second, bye);
    if (conns_.count(fd)) close_conn(fd);
  }
}

void Server::on_readable(int fd) {
  auto it = conns_.find(fd);
  if (it == conns_.end()) return;
  Conn& c = it->second;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.reader.feed(buf, std::size_t(n));
      serve_lines(c);
      if (!conns_.count(fd)) return;  // closed while serving
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    close_conn(fd);  // EOF or error
    return;
  }
}

void Server::serve_lines(Conn& c) {
  while (auto text = c.reader.next()) {
    c.last_ns = monotonic_ns();  // a partial line is not activity
    std::string err;
    auto req = ps::parse_line(*text, &err);
    if (!req) {
      send(c, ps::error_line(ps::kErrBadRequest, err).format());
      continue;
    }
    std::string answer;
    for (const auto& line : leases_.handle(c.fd, c.peer, *req)) answer += line.format();
    send(c, answer);
    if (!conns_.count(c.fd)) return;
  }
  if (c.reader.overlong()) {
    send(c, ps::error_line(ps::kErrBadRequest, "line longer than 4096 bytes; closing").format());
    close_conn(c.fd);
  }
}

// Answers are small; a client that lets them pile up past 1 MiB is dropped.
void Server::send(Conn& c, const std::string& text) {
  c.out += text;
  while (!c.out.empty()) {
    const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.out.erase(0, std::size_t(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR) && c.out.size() < kMaxPendingOut) return;
    close_conn(c.fd);
    return;
  }
}

void Server::close_conn(int fd) {
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  conns_.erase(fd);
  leases_.connection_closed(fd);
  ::close(fd);
}

int open_listen_socket(const std::string& path, bool* activated, std::string* why) {
  *activated = false;
  const char* lpid = std::getenv("LISTEN_PID");
  const char* lfds = std::getenv("LISTEN_FDS");
  if (lpid && lfds && std::strtol(lpid, nullptr, 10) == ::getpid()) {
    if (std::strcmp(lfds, "1") != 0) {
      *why = std::string("LISTEN_FDS=") + lfds + " (allowed: 1, the jouled.socket unit)";
      return -1;
    }
    ::unsetenv("LISTEN_PID");
    ::unsetenv("LISTEN_FDS");
    ::fcntl(3, F_SETFD, FD_CLOEXEC);
    *activated = true;
    return 3;  // SD_LISTEN_FDS_START
  }
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    *why = "socket path '" + path + "' is empty or longer than 107 bytes";
    return -1;
  }
  const auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string parent = path.substr(0, slash);
    if (::mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST) {
      *why = "cannot create " + parent + ": " + std::strerror(errno);
      return -1;
    }
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size());
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path.c_str());
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::chmod(path.c_str(), 0666) != 0 || ::listen(fd, 64) != 0) {
    *why = "cannot listen on " + path + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace joule::service
