// CardDaemon's sessions: one host from hello to hang-up. The worker is the
// host's binary re-executed (card_worker.cpp), so it runs the host's task
// functions; it is the daemon's child, dies with the daemon
// (PR_SET_PDEATHSIG) and is killed when the host's connection closes.
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "card_daemon.hpp"
#include "clock.hpp"

namespace joule::offload {
namespace {

constexpr int kHelloTimeoutMs = 5000;
constexpr int kReadyTimeoutMs = 10000;

bool read_hello(int fd, AttachHello& h) {
  pollfd pfd{fd, POLLIN, 0};
  if (poll(&pfd, 1, kHelloTimeoutMs) <= 0) return false;
  const ssize_t n = recv(fd, &h, sizeof h, MSG_WAITALL);
  return n == ssize_t(sizeof h) && h.magic == kAttachMagic;
}

std::string exit_text(int status) {
  return WIFSIGNALED(status) ? "died (killed by signal " + std::to_string(WTERMSIG(status)) + ")"
                             : "exited (status " + std::to_string(WEXITSTATUS(status)) + ")";
}

void say(const std::string& line) {
  std::fprintf(stderr, "joule-card: %s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace

// The binary to run comes from the kernel's view of the connected process,
// not from what it says, and only a process of the daemon's own user is
// served: the daemon executes that binary as itself.
static bool peer_binary(int fd, std::string& exe, std::string& error) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    error = std::string("SO_PEERCRED: ") + std::strerror(errno);
    return false;
  }
  if (cred.uid != getuid()) {
    error = "the host runs as uid " + std::to_string(cred.uid) + "; this daemon serves uid " +
            std::to_string(getuid()) + " only";
    return false;
  }
  char path[4096];
  const std::string link = "/proc/" + std::to_string(cred.pid) + "/exe";
  const ssize_t n = readlink(link.c_str(), path, sizeof path - 1);
  if (n <= 0) {
    error = "cannot read " + link + ": " + std::strerror(errno);
    return false;
  }
  exe.assign(path, std::size_t(n));
  return true;
}

bool CardDaemon::start_worker(int host_fd, const AttachHello& hello, std::string& error) {
  std::string exe;
  if (!peer_binary(host_fd, exe, error)) return false;
  if (access(exe.c_str(), X_OK) != 0) {
    error =
        "the host's binary " + exe + " cannot be executed by the daemon: " + std::strerror(errno);
    return false;
  }
  std::fflush(nullptr);
  worker_ = fork();
  if (worker_ < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (worker_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // no worker outlives its daemon
    setenv(kWorkerEnv, segment_.c_str(), 1);
    if (hello.ld_library_path[0]) setenv("LD_LIBRARY_PATH", hello.ld_library_path, 1);
    execl(exe.c_str(), exe.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return wait_ready(exe, error);
}

bool CardDaemon::wait_ready(const std::string& exe, std::string& error) {
  const std::uint64_t deadline = core::now_ns() + std::uint64_t(kReadyTimeoutMs) * 1000000;
  while (!area_->counters.ready.load(std::memory_order_acquire)) {
    std::string how;
    if (reap_worker(how)) {
      error = "the card worker (" + exe + ") " + how +
              " before its card was up (is it a program linked with libjoule?)";
      return false;
    }
    if (core::now_ns() > deadline) {
      kill_worker();
      error = "the card worker (" + exe + ") did not start its card within " +
              std::to_string(kReadyTimeoutMs / 1000) + " s";
      return false;
    }
    usleep(1000);
  }
  return true;
}

bool CardDaemon::reap_worker(std::string& how) {
  int status = 0;
  if (worker_ <= 0 || waitpid(worker_, &status, WNOHANG) != worker_) return false;
  worker_ = -1;
  how = exit_text(status);
  return true;
}

void CardDaemon::kill_worker() {
  if (worker_ <= 0) return;
  int status = 0;
  kill(worker_, SIGKILL);
  waitpid(worker_, &status, 0);
  worker_ = -1;
}

void CardDaemon::session(int host_fd, const std::atomic<bool>& stop, int wake_fd) {
  auto hello = std::make_unique<AttachHello>();
  if (!read_hello(host_fd, *hello)) return;  // a probe, or not a joule host
  const int host = hello->host_pid;
  auto reply = std::make_unique<AttachReply>();
  std::string error;
  reply->ok = start_worker(host_fd, *hello, error);
  reply->worker_pid = worker_;
  reply->segment_bytes = bytes_;
  std::snprintf(reply->segment, sizeof reply->segment, "%s", segment_.c_str());
  std::snprintf(reply->settings, sizeof reply->settings, "%s", card_settings_text(card_).c_str());
  std::snprintf(reply->error, sizeof reply->error, "%s", error.c_str());
  send(host_fd, reply.get(), sizeof *reply, MSG_NOSIGNAL);
  if (!reply->ok) {
    say("host pid " + std::to_string(host) + " refused: " + error);
    return;
  }
  ++sessions_;
  say("host pid " + std::to_string(host) + " attached (worker pid " + std::to_string(worker_) +
      ")");
  bool host_gone = false;
  while (!stop.load() && !host_gone) {
    pollfd fds[2] = {{host_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    poll(fds, wake_fd >= 0 ? 2 : 1, 20);
    if (std::string how; reap_worker(how)) {
      AttachNotice notice;
      std::snprintf(notice.text, sizeof notice.text, "%s", how.c_str());
      send(host_fd, &notice, sizeof notice, MSG_NOSIGNAL);
    }
    char byte;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR))
      host_gone = recv(host_fd, &byte, 1, MSG_DONTWAIT) <= 0;  // hosts send nothing more
  }
  const bool was_running = worker_ > 0;
  kill_worker();
  say("host pid " + std::to_string(host) + (host_gone ? " detached" : " dropped (stopping)") +
      (was_running ? "; its worker was killed" : "") + "; segment reset");
}

}  // namespace joule::offload
