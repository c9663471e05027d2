// Blocking jouled client (service_client.hpp).
#include "service_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace joule::platform::service_client {

namespace {

bool wait_for(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int r = ::poll(&p, 1, timeout_ms);
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) return false;
  }
}

}  // namespace

Client::~Client() { close(); }

void Client::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::unique_ptr<Client> Client::connect(const std::string& path, int timeout_ms, std::string* why) {
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    if (why) *why = "socket path empty or longer than " + std::to_string(sizeof addr.sun_path - 1);
    return nullptr;
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (why) *why = std::string("socket: ") + std::strerror(errno);
    return nullptr;
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  // A Unix stream connect does not block on a listening socket (a full
  // backlog answers EAGAIN), so no non-blocking dance is needed.
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (why) *why = path + ": " + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<Client>(new Client(fd, timeout_ms));
}

bool Client::send_all(const std::string& text, std::string* why) {
  std::size_t done = 0;
  while (done < text.size()) {
    if (!wait_for(fd_, POLLOUT, timeout_ms_)) {
      if (why) *why = "the service did not accept the request in time";
      return false;
    }
    const ssize_t n = ::send(fd_, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (why) *why = std::string("send: ") + std::strerror(errno);
      return false;
    }
    done += std::size_t(n);
  }
  return true;
}

std::optional<std::string> Client::read_line(std::string* why) {
  for (;;) {
    if (auto line = reader_.next()) return line;
    if (reader_.overlong()) {
      if (why) *why = "the service sent a line longer than 4096 bytes";
      return std::nullopt;
    }
    if (!wait_for(fd_, POLLIN, timeout_ms_)) {
      if (why) *why = "no answer from the service in " + std::to_string(timeout_ms_) + " ms";
      return std::nullopt;
    }
    char buf[1024];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (why) *why = n == 0 ? "the service closed the connection" : std::strerror(errno);
      return std::nullopt;
    }
    reader_.feed(buf, std::size_t(n));
  }
}

std::optional<Reply> Client::call(const Line& request, std::string* why) {
  std::lock_guard guard(mu_);
  if (fd_ < 0) {
    if (why) *why = "not connected";
    return std::nullopt;
  }
  if (!send_all(request.format(), why)) {
    close();
    return std::nullopt;
  }
  Reply reply;
  for (;;) {
    auto text = read_line(why);
    std::string error;
    auto line = text ? parse_line(*text, &error) : std::nullopt;
    if (text && !line && why) *why = "the service sent an invalid line: " + error;
    if (!line) {
      close();
      return std::nullopt;
    }
    if (line->is_data()) {
      reply.data.push_back(std::move(*line));
      continue;
    }
    if (!line->is_ok() && !line->is_err()) {
      if (why) *why = "the service answered with verb '" + line->verb() + "'";
      close();
      return std::nullopt;
    }
    reply.final = std::move(*line);
    return reply;
  }
}

}  // namespace joule::platform::service_client
