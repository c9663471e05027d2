// CardDaemon: claiming the name (socket and segment), resetting the segment
// between hosts, and the accept loop. Sessions: card_daemon_session.cpp.
#include "card_daemon.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "joule/types.hpp"
#include "text.hpp"

namespace joule::offload {
namespace {

[[noreturn]] void daemon_error(const std::string& msg) {
  throw joule::error(JOULE_ERR_CONFIG, "joule-card: " + msg);
}

sockaddr_un socket_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  return addr;
}

// A socket file nobody accepts on is what a killed daemon leaves.
bool someone_listens(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const sockaddr_un addr = socket_address(path);
  const bool live = connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return live;
}

}  // namespace

CardDaemon::CardDaemon(std::string name, const CardSettings& card)
    : name_(std::move(name)), card_(card), plan_(plan_card(card)) {
  if (!valid_daemon_name(name_))
    daemon_error("bad daemon name '" + name_ +
                 "' (allowed: 1..64 of A-Z a-z 0-9 . _ -, not starting with .)");
  card_.cpus = plan_.cpus;  // what the workers and hosts are told
  card_.mode = CardMode::attach;
  card_.daemon = name_;
  socket_path_ = daemon_socket_path(name_);
  segment_ = daemon_segment_name(name_);
  if (someone_listens(socket_path_))
    daemon_error("a joule-card daemon named '" + name_ + "' is already running (" + socket_path_ +
                 ")");
  unlink(socket_path_.c_str());  // stale: its daemon was killed
  shm_unlink(segment_.c_str());
  open_segment();
  try {
    open_socket();
  } catch (...) {
    munmap(area_, bytes_);
    shm_unlink(segment_.c_str());
    throw;
  }
}

CardDaemon::~CardDaemon() {
  kill_worker();
  if (listen_fd_ >= 0) close(listen_fd_);
  unlink(socket_path_.c_str());
  if (area_) munmap(area_, bytes_);
  shm_unlink(segment_.c_str());
}

void CardDaemon::open_segment() {
  bytes_ = SharedArea::staging_offset() + (std::size_t(card_.staging_mb) << 20);
  const int fd = shm_open(segment_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) daemon_error("cannot create the segment " + segment_ + ": " + std::strerror(errno));
  void* p = MAP_FAILED;
  if (ftruncate(fd, off_t(bytes_)) == 0)
    p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  close(fd);
  if (p == MAP_FAILED) {
    shm_unlink(segment_.c_str());
    daemon_error("cannot size or map the segment " + segment_ + " (" + std::to_string(bytes_) +
                 " bytes): " + std::strerror(err));
  }
  area_ = static_cast<SharedArea*>(p);
  reset_segment();
}

void CardDaemon::open_socket() {
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const sockaddr_un addr = socket_address(socket_path_);
  if (listen_fd_ < 0 ||
      bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listen_fd_, 8) != 0)
    daemon_error("cannot listen on " + socket_path_ + ": " + std::strerror(errno));
  chmod(socket_path_.c_str(), 0600);  // the daemon's user only (hosts are checked too)
}

// Every host starts from a fresh card: new rings and counters, no module
// table, a zeroed staging area (nothing of the last host's data is left).
void CardDaemon::reset_segment() {
  new (area_) SharedArea();
  area_->worker.daemon_pid = getpid();
  std::snprintf(area_->worker.settings, sizeof area_->worker.settings, "%s",
                card_settings_text(card_).c_str());
  std::memset(area_->staging(), 0, bytes_ - SharedArea::staging_offset());
}

std::string CardDaemon::describe() const {
  return "card '" + name_ + "' on " + socket_path_ + " (segment " + segment_ +
         "): " + card_.topology + ", " + std::to_string(plan_.slots.size()) + " threads " +
         card_.affinity + " on host CPUs " + core::format_cpu_list(plan_.cpus);
}

void CardDaemon::serve(const std::atomic<bool>& stop, int wake_fd) {
  while (!stop.load()) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    if (poll(fds, wake_fd >= 0 ? 2 : 1, 500) <= 0 || !(fds[0].revents & POLLIN)) continue;
    const int host = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (host < 0) continue;
    session(host, stop, wake_fd);
    close(host);
    reset_segment();
  }
}

}  // namespace joule::offload
