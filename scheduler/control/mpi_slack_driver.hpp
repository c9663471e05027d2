// mpi-slack's live side: libjoule-mpi tells the runtime (joule_energy_mpi_
// enter / leave) when a worker's thread blocks in an MPI call; a call that
// outlasts JOULE_ENERGY_MPI_SLACK_US puts that worker's core at fmin until it
// returns (energy::MpiSlack decides). The deadline is kept by one timer
// thread that sleeps until the earliest one (started at the first call, so
// programs without MPI never have it). Cores in a shared DVFS domain are
// left alone: the others in it still compute. A CPU the lending layer lent
// at the call's entry is left alone too: its borrower runs there.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <iosfwd>
#include <mutex>
#include <thread>
#include <vector>

#include "energy_policy.hpp"
#include "mpi_slack.hpp"

namespace joule::platform {
class Platform;
}  // namespace joule::platform

namespace joule::control {

class MpiSlackDriver {
 public:
  MpiSlackDriver(platform::Platform& p, const energy::Options& opt);
  ~MpiSlackDriver();
  MpiSlackDriver(const MpiSlackDriver&) = delete;
  MpiSlackDriver& operator=(const MpiSlackDriver&) = delete;

  void begin(int workers);
  // On the calling worker's thread, around a blocking call.
  void enter(int worker);
  void leave(int worker);
  // Platform::end: the timer stops, every slowed core is restored.
  void end();
  void report(std::ostream& os) const;
  std::uint64_t calls() const noexcept { return calls_; }

 private:
  struct Slot {
    energy::MpiSlack slack;
    std::uint64_t deadline = 0;  // 0: nothing pending
    int saved_level = -1;        // the level to restore, -1: not slowed
    std::uint64_t slowed_at = 0;
  };
  void timer_loop();
  void fire_due(std::uint64_t now);  // mu_ held
  void restore(int worker);          // mu_ held
  bool controllable(int worker) const;

  platform::Platform& p_;
  energy::MpiSlackOptions opt_;
  std::vector<Slot> slots_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread timer_;
  bool stop_ = false;
  std::uint64_t slowed_calls_ = 0, calls_ = 0, slow_ns_ = 0;
};

}  // namespace joule::control
