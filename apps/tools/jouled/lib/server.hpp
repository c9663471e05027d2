// jouled's event loop (epoll(7)): the listening socket, one non-blocking
// connection per client with its LineReader, a pidfd per lease
// (pidfd_open(2): readable once the process exits), a signalfd(2) for
// TERM/INT (put everything back, exit) and HUP (reload the access file),
// and a timerfd(2) that samples the energy meter every 10 s. Of the
// kMaxClients slots, kRootSlots are kept for root (the Slurm plugin's
// job-end, joule-ctl), and a connection without a lease that says nothing
// for the idle timeout is closed: idle users cannot lock root out.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>

#include "lease_service.hpp"
#include "service_protocol.hpp"

namespace joule::service {

inline constexpr int kMaxClients = 256;
inline constexpr int kRootSlots = 16;  // of kMaxClients: users share the rest
inline constexpr int kMaxClientsPerUid = 32;

class Server {
 public:
  // `listen_fd`: a bound, listening Unix stream socket (ours or systemd's).
  // `idle_timeout_s`: a connection without a lease that sends nothing for
  // that long is closed (jouled --idle-timeout).
  Server(int listen_fd, LeaseService& leases, JobBook& jobs, int idle_timeout_s);
  ~Server();
  // Called on SIGHUP; returns a message for the log.
  std::function<std::string()> reload;
  // Runs until SIGTERM/SIGINT; the exit status.
  int run();

 private:
  struct Conn {
    int fd = -1;
    Peer peer;
    platform::service_client::LineReader reader;
    std::string out;           // unsent answer bytes
    std::int64_t last_ns = 0;  // accepted, or its last request (monotonic_ns)
  };
  enum Kind : int { kListen = -1, kSignal = -2, kTimer = -3 };

  void add_fd(int fd, std::uint64_t tag);
  void accept_clients();
  // "" when a connection of `uid` may have a slot, else why not.
  std::string refusal(uid_t uid) const;
  void close_idle();
  void on_readable(int fd);
  void serve_lines(Conn& c);
  void send(Conn& c, const std::string& text);
  void close_conn(int fd);
  bool on_signal();

  int idle_timeout_s_;
  int listen_fd_, epoll_fd_ = -1, signal_fd_ = -1, timer_fd_ = -1;
  LeaseService& leases_;
  JobBook& jobs_;
  std::map<int, Conn> conns_;
  std::map<int, int> pidfd_lease_;  // pidfd -> lease id
  std::int64_t last_sweep_ns_ = 0;
};

// The socket to serve: systemd's (LISTEN_PID/LISTEN_FDS, sd_listen_fds(3))
// or a new one at `path` (parent folder 0755, socket 0666); -1 with *why.
int open_listen_socket(const std::string& path, bool* activated, std::string* why);

}  // namespace joule::service
