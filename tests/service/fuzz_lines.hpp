// The byte fuzzer of the jouled test: lines that are random bytes, valid
// requests with mutated bytes, and overlong lines, over many connections.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>

namespace joule::test {

inline int fuzz_connect(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends `text`, then reads whatever comes back until EOF or 2 s of silence.
inline void fuzz_exchange(int fd, const std::string& text) {
  if (::send(fd, text.data(), text.size(), MSG_NOSIGNAL) < 0) return;
  ::shutdown(fd, SHUT_WR);
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 2000) <= 0 || ::read(fd, buf, sizeof buf) <= 0) return;
  }
}

// Exit status 0 when every connection could be made.
inline int fuzz(const std::string& socket) {
  const char* valid[] = {"hello version=1",
                         "hello version=1 job=42",
                         "domains",
                         "set cpu=0 khz=1200000",
                         "set cpu=1 khz=2400000",
                         "energy",
                         "release",
                         "jobs limit=3",
                         "status",
                         "job-end job=42",
                         "set cpu=99999999999 khz=-1"};
  std::mt19937 rng(20261126);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int lines = 0;
  while (std::chrono::steady_clock::now() < end || lines < 2000) {
    std::string batch = rng() % 2 ? "hello version=1\n" : "";
    for (int i = 0; i < 40; ++i, ++lines) {
      std::string l = valid[rng() % (sizeof valid / sizeof *valid)];
      switch (rng() % 4) {
        case 0:  // random bytes
          l.assign(rng() % 80, '\0');
          for (auto& ch : l) ch = char(rng());
          break;
        case 1:  // mutated bytes of a valid line
          for (int k = 0; k < 3 && !l.empty(); ++k) l[rng() % l.size()] = char(rng());
          break;
        case 2:
          if (rng() % 10 == 0) l.assign(5000 + rng() % 3000, char('a' + rng() % 26));
          break;
        default:
          break;
      }
      batch += l + "\n";
    }
    const int fd = fuzz_connect(socket);
    if (fd < 0) return 1;
    fuzz_exchange(fd, batch);
    ::close(fd);
    if (lines > 20000) break;
  }
  return 0;
}

}  // namespace joule::test
