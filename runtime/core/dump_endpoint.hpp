// Where a running joule process answers `joule-ctl dump PID` with its state
// (engine/dump_listener.hpp): a Unix socket in the abstract namespace
// (unix(7), "Abstract sockets"), named after the pid, so nothing is left on
// disk when the process dies however it dies. The listener checks the
// caller's credentials (SO_PEERCRED): the process's own user or root.
#pragma once

#include <string>

namespace joule::core {

inline std::string dump_endpoint_name(long pid) { return "joule-dump." + std::to_string(pid); }

}  // namespace joule::core
