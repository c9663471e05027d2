// A blocking connection to jouled (service_protocol.hpp). One request at a
// time: call() holds a mutex, so the DVFS backend's per-domain threads may
// share one connection. Every read and write has a timeout, so a stalled
// service costs a bounded wait, never a hang.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "service_protocol.hpp"

namespace joule::platform::service_client {

struct Reply {
  std::vector<Line> data;  // the "data" lines, in order
  Line final;              // "ok ..." or "err ..."
  bool ok() const noexcept { return final.is_ok(); }
  std::string error_code() const { return final.get_or("code", ""); }
  std::string error_message() const { return final.get_or("message", ""); }
};

class Client {
 public:
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Connects to the socket at `path`; nullptr with the reason in *why
  // (no such socket, refused, ...). Does not say hello.
  static std::unique_ptr<Client> connect(const std::string& path, int timeout_ms, std::string* why);

  // Sends `request`, reads data lines up to the final line. nullopt (with
  // *why) when the connection failed or the service sent something that
  // is not a valid line; the connection is unusable afterwards.
  std::optional<Reply> call(const Line& request, std::string* why);
  bool connected() const noexcept { return fd_ >= 0; }
  void close() noexcept;

 private:
  explicit Client(int fd, int timeout_ms) : fd_(fd), timeout_ms_(timeout_ms) {}
  bool send_all(const std::string& text, std::string* why);
  std::optional<std::string> read_line(std::string* why);

  std::mutex mu_;
  int fd_ = -1;
  int timeout_ms_ = 2000;
  LineReader reader_;
};

// The socket a client uses: `configured` when set, else kDefaultSocket.
inline std::string socket_path(const std::string& configured) {
  return configured.empty() ? std::string(kDefaultSocket) : configured;
}

}  // namespace joule::platform::service_client
