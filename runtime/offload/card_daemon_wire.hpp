// What a host and a joule-card daemon say to each other. The daemon listens
// on a Unix socket named after it and owns one shared-memory segment (the
// SharedArea with its rings and staging area) that it lends to one host at a
// time. The socket is also the liveness channel: the kernel closes a host's
// end when the host dies, however it dies, which is how the daemon knows to
// kill that host's card worker and reset the segment for the next host.
//
//   host                          daemon                      worker (host binary re-executed)
//   connect, AttachHello  ──▶     reset segment, fork+exec ──▶ libjoule constructor: card_main
//                        ◀──      AttachReply (segment, settings, worker pid)
//   map segment, rings    ◀════════════════════════════════▶  rings (as in the forked design)
//                        ◀──      AttachNotice when the worker exits
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "card_settings.hpp"
#include "config.hpp"

namespace joule::offload {

inline constexpr std::uint32_t kAttachMagic = 0x6a636431;  // "jcd1"
// The environment variable that turns a re-executed host binary into a card
// worker: its value is the daemon's segment name.
inline constexpr const char* kWorkerEnv = "JOULE_CARD_WORKER";

// 1..64 of [A-Za-z0-9._-], not starting with '.': it becomes part of a path.
inline bool valid_daemon_name(std::string_view n) {
  if (n.empty() || n.size() > 64 || n[0] == '.') return false;
  for (char ch : n) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
    if (!ok) return false;
  }
  return true;
}
inline std::string daemon_socket_path(const std::string& name) {
  return "/tmp/joule-card." + name + ".sock";
}
inline std::string daemon_segment_name(const std::string& name) {  // for shm_open
  return "/joule-card." + name;
}

struct AttachHello {
  std::uint32_t magic = kAttachMagic;
  std::int32_t host_pid = 0;
  char exe[1024] = {};  // the host's binary (the daemon runs what /proc/PID/exe of the peer says)
  char ld_library_path[2048] = {};  // so the worker loads the same libraries
};

struct AttachReply {
  std::uint32_t magic = kAttachMagic;
  std::uint32_t ok = 0;
  std::int32_t worker_pid = -1;
  std::uint64_t segment_bytes = 0;
  char segment[96] = {};
  char settings[2048] = {};  // the daemon's card: card_settings_text()
  char error[512] = {};
};

// Sent by the daemon when the host's worker has exited (then it waits for
// the host to close the connection).
struct AttachNotice {
  std::uint32_t magic = kAttachMagic;
  char text[256] = {};
};

// The card settings as KEY=VALUE lines (every JOULE_CARD_* key but
// JOULE_CARD and JOULE_CARD_DAEMON), and back through the key table (throws
// std::invalid_argument for a bad value).
std::string card_settings_text(const CardSettings& card);
CardSettings parse_card_settings(std::string_view text, CardSettings card = {});

}  // namespace joule::offload
