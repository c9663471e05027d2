// Where a running joule process answers `joule-ctl dump PID` with its state
// (engine/dump_listener.hpp): a Unix socket in the abstract namespace
// (unix(7), "Abstract sockets"), named after the pid, so nothing is left on
// disk when the process dies however it dies. The listener checks the
// caller's credentials (SO_PEERCRED): the process's own user or root.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <cstddef>
#include <cstring>
#include <string>

namespace joule::core {

inline std::string dump_endpoint_name(long pid) { return "joule-dump." + std::to_string(pid); }

// The endpoint's address for bind/connect, and its length (sun_path[0] = 0:
// the abstract namespace, no file).
inline socklen_t dump_endpoint_address(long pid, sockaddr_un& addr) {
  addr = sockaddr_un{};
  addr.sun_family = AF_UNIX;
  const std::string name = dump_endpoint_name(pid);
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  return socklen_t(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

}  // namespace joule::core
