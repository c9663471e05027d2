// mpi-slack: COUNTDOWN-like slowing of a core blocked in an MPI call, as a
// pure state machine that libjoule-mpi drives from its interposed calls (one
// instance per worker thread; not thread-safe). A blocking call arms a timer
// on entry; only a call that outlasts slack_s slows its core (short calls
// pay nothing); one that outlasts lend_s lends the CPU instead when lending
// is available. On return whatever was done is undone.
#pragma once

#include <cstdint>

#include "energy_policy.hpp"

namespace joule::energy {

struct MpiSlackOptions {
  double slack_s = 500e-6;  // Options::mpi_slack_s (JOULE_ENERGY_MPI_SLACK_US)
  double lend_s = 5e-3;     // Options::mpi_lend_s
  bool can_lend = false;    // LeWI is on for this process
};

// From the policy knobs; can_lend as the caller knows it.
MpiSlackOptions mpi_slack_options(const Options& opt, bool can_lend);

class MpiSlack {
 public:
  enum class Action {
    none,
    slow_down,  // set the core's domain to fmin
    lend,       // lend the CPU (LeWI) for the rest of the call
    restore,    // undo: frequency back and/or reclaim the CPU (see slowed()/lent())
  };

  explicit MpiSlack(const MpiSlackOptions& opt = {}) : opt_(opt) {}

  // A blocking call starts (nested calls count as the outer one).
  Action on_call_enter(std::uint64_t now_ns);
  // Called from the waiting loop or a timer; returns each action once per call.
  Action poll(std::uint64_t now_ns);
  // The call returns: restore if it slowed or lent, else none. slowed() and
  // lent() still describe the finished call until the next enter.
  Action on_call_exit(std::uint64_t now_ns);

  bool in_call() const { return depth_ > 0; }
  bool slowed() const { return slowed_; }
  bool lent() const { return lent_; }

  struct Stats {
    std::uint64_t calls = 0, slowed = 0, lent = 0;
    double slow_s = 0;  // time spent slowed or lent
  };
  const Stats& stats() const { return stats_; }

 private:
  MpiSlackOptions opt_;
  int depth_ = 0;
  std::uint64_t enter_ns_ = 0;
  std::uint64_t acted_ns_ = 0;  // when the first action was taken
  bool slowed_ = false, lent_ = false;
  Stats stats_;
};

}  // namespace joule::energy
