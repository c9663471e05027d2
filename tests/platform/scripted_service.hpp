// A Unix-socket server that answers the jouled protocol from a script, for
// the client's faults that a real jouled does not produce on demand: a
// change accepted but not in effect, a service that dies mid-run, one that
// stalls. The end-to-end tests (tests/service) use the real jouled.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "service_protocol.hpp"
#include "temp_dir.hpp"

namespace joule::test {

namespace ps = platform::service_client;

class ScriptedService {
 public:
  // Answer lines for a request (data lines, then the final line).
  using Handler = std::function<std::vector<std::string>(const ps::Line&)>;

  ScriptedService() : dir_("svc"), path_(dir_.file("s.sock")) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path_.c_str(), sizeof a.sun_path - 1);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 8) != 0)
      ADD_FAILURE() << "cannot listen on " << path_ << ": " << std::strerror(errno);
    thread_ = std::thread([this] { loop(); });
  }
  ~ScriptedService() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  const std::string& path() const { return path_; }
  void on(const std::string& verb, Handler h) {
    std::lock_guard g(mu_);
    handlers_[verb] = std::move(h);
  }
  // Closes every open connection after the next `n` requests.
  void drop_after(int n) { drop_after_ = n; }
  int connections() const { return connections_.load(); }
  std::vector<std::string> requests() const {
    std::lock_guard g(mu_);
    return requests_;
  }

 private:
  void loop() {
    std::vector<pollfd> fds{{fd_, POLLIN, 0}};
    std::map<int, ps::LineReader> readers;
    while (!stop_) {
      if (::poll(fds.data(), fds.size(), 20) <= 0) continue;
      for (std::size_t i = 1; i < fds.size(); ++i)
        if (fds[i].revents && !serve(fds[i].fd, readers[fds[i].fd])) {
          ::close(fds[i].fd);
          readers.erase(fds[i].fd);
          fds[i].fd = -1;
        }
      if (fds[0].revents & POLLIN) {
        fds.push_back({::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC), POLLIN, 0});
        ++connections_;
      }
      std::erase_if(fds, [](const pollfd& p) { return p.fd < 0; });
    }
    for (std::size_t i = 1; i < fds.size(); ++i) ::close(fds[i].fd);
  }
  // False when the connection is to be closed.
  bool serve(int fd, ps::LineReader& r) {
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    r.feed(buf, std::size_t(n));
    while (auto text = r.next()) {
      if (drop_after_ == 0) return false;
      if (drop_after_ > 0) --drop_after_;
      std::string err;
      auto line = ps::parse_line(*text, &err);
      std::string out;
      for (const auto& l : answer(line ? *line : ps::Line("bad"), *text)) out += l + "\n";
      if (::send(fd, out.data(), out.size(), MSG_NOSIGNAL) != ssize_t(out.size())) return false;
    }
    return true;
  }
  std::vector<std::string> answer(const ps::Line& l, const std::string& text) {
    std::lock_guard g(mu_);
    requests_.push_back(text);
    auto it = handlers_.find(l.verb());
    if (it == handlers_.end()) return {"err code=bad-request message=unknown"};
    return it->second(l);
  }

  joule_test::TempDir dir_;
  std::string path_;
  int fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> drop_after_{-1}, connections_{0};
  mutable std::mutex mu_;
  std::map<std::string, Handler> handlers_;
  std::vector<std::string> requests_;
};

}  // namespace joule::test
