// EmulatedCard, attach mode: instead of forking a card, the host connects to
// a running joule-card daemon (card_daemon.hpp), which re-executes the
// host's binary as the card worker and lends it its shared segment. From
// then on the host talks to the card exactly as to a forked one (the same
// rings, staging area and pump); only finding the card and noticing its
// death differ: the daemon reports the worker's exit on the connection, and
// the connection closing means the daemon itself is gone.
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <fcntl.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "card_daemon_wire.hpp"
#include "clock.hpp"
#include "code_relocation.hpp"
#include "emulated_card.hpp"
#include "joule/types.hpp"

namespace joule::offload {
namespace {

constexpr int kAnswerTimeoutMs = 10000;

[[noreturn]] void attach_error(const std::string& daemon, const std::string& why) {
  throw joule::error(
      JOULE_ERR_CONFIG,
      "joule: configuration error: JOULE_CARD=attach, JOULE_CARD_DAEMON=" + daemon + ": " + why);
}

int connect_daemon(const std::string& name) {
  const std::string path = daemon_socket_path(name);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) attach_error(name, std::string("socket: ") + std::strerror(errno));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    close(fd);
    attach_error(name, "no joule-card daemon is running under that name (" + path + ": " +
                           std::strerror(err) + "); start one with 'joule-card --name " + name +
                           "'");
  }
  return fd;
}

// Waits for the whole reply; the daemon serves one host at a time, so a
// busy daemon answers only when its current host has gone.
void read_reply(int fd, const std::string& name, AttachReply& reply) {
  auto* p = reinterpret_cast<char*>(&reply);
  std::size_t got = 0;
  const std::uint64_t deadline = core::now_ns() + std::uint64_t(kAnswerTimeoutMs) * 1000000;
  while (got < sizeof reply) {
    pollfd pfd{fd, POLLIN, 0};
    const int left_ms = int((deadline - std::min(deadline, core::now_ns())) / 1000000);
    if (left_ms <= 0 || poll(&pfd, 1, left_ms) == 0)
      attach_error(name, "the daemon did not answer within " +
                             std::to_string(kAnswerTimeoutMs / 1000) +
                             " s (it serves one host at a time: is another host attached?)");
    const ssize_t n = recv(fd, p + got, sizeof reply - got, 0);
    if (n == 0) attach_error(name, "the daemon closed the connection before answering");
    if (n < 0 && errno != EINTR) attach_error(name, std::string("recv: ") + std::strerror(errno));
    if (n > 0) got += std::size_t(n);
  }
  if (reply.magic != kAttachMagic) attach_error(name, "the daemon's answer is not joule-card's");
  if (!reply.ok) attach_error(name, reply.error);
}

AttachHello make_hello() {
  AttachHello h;
  h.host_pid = getpid();
  const ssize_t n = readlink("/proc/self/exe", h.exe, sizeof h.exe - 1);
  if (n <= 0) throw joule::error(JOULE_ERR_STATE, "joule card: cannot read /proc/self/exe");
  h.exe[n] = '\0';
  if (const char* lib = std::getenv("LD_LIBRARY_PATH"))
    std::snprintf(h.ld_library_path, sizeof h.ld_library_path, "%s", lib);
  return h;
}

}  // namespace

std::unique_ptr<EmulatedCard> EmulatedCard::attach(const CardSettings& cfg) {
  std::unique_ptr<EmulatedCard> card(
      new EmulatedCard(cfg, card_affinity::CardTopology::uniform(1, 1, 1)));
  card->attach_daemon();
  return card;
}

void EmulatedCard::attach_daemon() {
  const std::string name = cfg_.daemon;
  daemon_fd_ = connect_daemon(name);
  const AttachHello hello = make_hello();
  if (send(daemon_fd_, &hello, sizeof hello, MSG_NOSIGNAL) != ssize_t(sizeof hello))
    attach_error(name, std::string("send: ") + std::strerror(errno));
  auto reply = std::make_unique<AttachReply>();
  read_reply(daemon_fd_, name, *reply);
  try {  // the card is the daemon's: its settings replace this process's
    cfg_ = parse_card_settings(reply->settings, cfg_);
    CardSettings here = cfg_;
    here.cpus.clear();  // the daemon's CPUs, checked against the daemon's mask
    CardPlan plan = plan_card(here);
    topo_ = std::move(plan.topo);
    slots_ = std::move(plan.slots);
    freq_.store(plan.freq);
  } catch (const std::exception& e) {
    attach_error(name, std::string("the daemon's card settings: ") + e.what());
  }
  const int shm = shm_open(reply->segment, O_RDWR | O_CLOEXEC, 0);
  if (shm < 0)
    attach_error(name, std::string("shm_open ") + reply->segment + ": " + std::strerror(errno));
  map_bytes_ = reply->segment_bytes;
  void* p = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
  close(shm);
  if (p == MAP_FAILED) attach_error(name, std::string("mmap: ") + std::strerror(errno));
  area_ = static_cast<SharedArea*>(p);
  pid_ = reply->worker_pid;
  staging_bytes_ = map_bytes_ - SharedArea::staging_offset();
  free_[0] = staging_bytes_;
  host_cpus_ = cfg_.cpus;
  area_->counters.speed_permille.store(speed_permille(cfg_, freq_.load()));
  record_modules(area_->modules);  // before the first command: the ring orders it
  start_ns_ = core::now_ns();
  pump_ = std::thread([this] { pump(); });
}

// The daemon says when the worker exits; a closed connection means the
// daemon died (its worker dies with it).
bool EmulatedCard::daemon_gone() {
  pollfd pfd{daemon_fd_, POLLIN, 0};
  if (poll(&pfd, 1, 0) <= 0) return false;
  AttachNotice notice;
  const ssize_t n = recv(daemon_fd_, &notice, sizeof notice, MSG_WAITALL);
  if (n == ssize_t(sizeof notice) && notice.magic == kAttachMagic)
    death_ = "joule card: the card process (pid " + std::to_string(pid_) +
             ", worker of joule-card daemon '" + cfg_.daemon + "') " + notice.text;
  else
    death_ = "joule card: the joule-card daemon '" + cfg_.daemon + "' went away (its worker, pid " +
             std::to_string(pid_) + ", with it)";
  dead_.store(true);
  return true;
}

}  // namespace joule::offload
