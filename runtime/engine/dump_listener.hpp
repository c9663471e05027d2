// The thread that answers for a hung program. It listens on the process's
// dump endpoint (core/dump_endpoint.hpp) and writes the state dump
// (state_dump.hpp) to whoever connects with the process's own uid or root:
// `joule-ctl dump PID`. With JOULE_WATCHDOG=SECONDS it also prints the dump
// to stderr, once per stall, when tasks are in flight and none completed
// for that long. With JOULE_DUMP_SIGNAL, SIGUSR2 prints it to stderr too
// (the handler only writes to an eventfd this thread polls: the dump itself
// allocates). It sleeps in poll(2) otherwise: no periodic wake-ups unless
// the watchdog is on. Started after the workers, stopped before they
// are joined, so that a hang in the runtime's own stop can be dumped too.
#pragma once

#include <cstdint>
#include <thread>

namespace joule::engine {

class Runtime;

class DumpListener {
 public:
  explicit DumpListener(Runtime& rt) : rt_(rt) {}
  ~DumpListener() { stop(); }
  DumpListener(const DumpListener&) = delete;
  DumpListener& operator=(const DumpListener&) = delete;

  // endpoint: listen for joule-ctl dump; watchdog_s: 0 or the stall that
  // prints the dump; on_signal: SIGUSR2 prints it (unless the program has a
  // handler of its own: then one warning). A socket that cannot be made is
  // one warning, no error.
  void start(bool endpoint, int watchdog_s, bool on_signal = false);
  void stop();

 private:
  bool open_endpoint();
  bool catch_signal();
  void release_signal();
  void run();
  void answer(int client);
  void watchdog_tick();

  Runtime& rt_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;    // an eventfd: stop() ends the poll
  int signal_fd_ = -1;  // an eventfd the SIGUSR2 handler writes
  int watchdog_s_ = 0;
  std::thread thread_;
  std::uint64_t last_completed_ = 0;
  int stalled_s_ = 0;
  bool reported_ = false;
};

}  // namespace joule::engine
