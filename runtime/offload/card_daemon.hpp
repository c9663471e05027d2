// The joule-card daemon (apps/tools/joule-card): one emulated card, lent to
// one host process at a time. It owns a named socket
// (/tmp/joule-card.NAME.sock) and a named shared-memory segment
// (/joule-card.NAME); a host connects, the daemon resets the segment,
// re-executes the host's binary as the card worker (card_worker.cpp) and
// answers with the segment's name and its card's settings. When the host
// goes — cleanly or killed — its end of the socket closes, and the daemon
// kills the worker if it still runs and resets the segment for the next
// host. Stopping the daemon removes the socket and the segment.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <string>

#include "card_daemon_wire.hpp"
#include "card_protocol.hpp"
#include "config.hpp"
#include "emulated_card.hpp"

namespace joule::offload {

class CardDaemon {
 public:
  // Checks the card (as JOULE_CARD=emulated would) and claims the name;
  // throws joule::error(JOULE_ERR_CONFIG) for bad settings, a bad name or a
  // daemon already running under it (a stale socket or segment left by a
  // killed daemon is removed).
  CardDaemon(std::string name, const CardSettings& card);
  ~CardDaemon();  // ends a worker, removes the socket and the segment
  CardDaemon(const CardDaemon&) = delete;
  CardDaemon& operator=(const CardDaemon&) = delete;

  std::string describe() const;
  // Serves hosts one after another until `stop` is set; wake_fd (readable
  // when stop is set, e.g. a signal's self-pipe) cuts waits short.
  void serve(const std::atomic<bool>& stop, int wake_fd);
  int sessions() const noexcept { return sessions_; }

 private:
  void open_segment();
  void open_socket();
  void reset_segment();
  void session(int host_fd, const std::atomic<bool>& stop, int wake_fd);
  bool start_worker(int host_fd, const AttachHello& hello, std::string& error);
  bool wait_ready(const std::string& exe, std::string& error);
  bool reap_worker(std::string& how);  // the worker has exited: how
  void kill_worker();

  std::string name_;
  CardSettings card_;
  CardPlan plan_;
  std::string socket_path_, segment_;
  int listen_fd_ = -1;
  SharedArea* area_ = nullptr;
  std::size_t bytes_ = 0;
  pid_t worker_ = -1;
  int sessions_ = 0;
};

}  // namespace joule::offload
