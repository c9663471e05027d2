// The platform layer's internal API: what energy policies (and tests) call
// while the runtime runs. The Platform probes the machine and picks the
// backends (construction), then owns the parts that do the work, each with
// its own header:
//
//   frequencies()  DVFS: P-states, setting a core or a chip, restore (frequencies.hpp)
//   workers()      per-worker accounting on the task path (worker_accounts.hpp)
//   sensors()      energy readings and temperatures (sensors.hpp)
//   counters()     per-task hardware counters (counters.hpp)
//
// and the run's start and end, the layer above's listener
// (platform_listener.hpp) and the report. CPUs here are "platform CPUs":
// the CPU a worker's DVFS and energy refer to (workers().cpu(w)): its real
// CPU, or with a synthetic JOULE_TOPOLOGY and emulated DVFS, model PU
// (worker mod N), so a 2-CPU VM can pretend to be several chips.
//
//   platform::Platform* p = platform::current_platform();  // nullptr: layer off
//   if (p && p->frequencies().can_set())
//     p->frequencies().set_chip(0, p->frequencies().pstates(p->workers().cpu(0)).front());
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "counters.hpp"
#include "dvfs.hpp"
#include "frequencies.hpp"
#include "machine.hpp"
#include "platform_settings.hpp"
#include "power_model.hpp"
#include "sensors.hpp"
#include "sysfs.hpp"
#include "worker_accounts.hpp"

namespace joule::platform::service_client {
class Session;
}

namespace joule::core {
struct Config;
struct RunInfo;
}  // namespace joule::core

namespace joule::platform {

class PlatformListener;

class Platform {
 public:
  // Probes and builds the backends the configuration asks for. Warnings
  // (a fallback, a missing permission) are printed once.
  explicit Platform(const core::Config& cfg);
  Platform(const core::Config& cfg, const PlatformSettings& settings);
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  const Machine& machine() const noexcept { return machine_; }
  const PowerModel& model() const noexcept { return model_; }
  Frequencies& frequencies() noexcept { return freq_; }
  const Frequencies& frequencies() const noexcept { return freq_; }
  // The DVFS backend itself (frequencies().backend()): policies work in its
  // levels and domains.
  Dvfs& dvfs() noexcept { return freq_.backend(); }
  WorkerAccounts& workers() noexcept { return workers_; }
  const WorkerAccounts& workers() const noexcept { return workers_; }
  Sensors& sensors() noexcept { return sensors_; }
  const Sensors& sensors() const noexcept { return sensors_; }
  const Counters& counters() const noexcept { return counters_; }
  std::string describe() const;
  bool active() const noexcept { return active_; }

  // Attaches the layer above (the energy controller), before begin. The
  // listener is asked live() here, once.
  void set_listener(std::unique_ptr<PlatformListener> l);
  PlatformListener* listener() const noexcept { return listener_.get(); }

  // ---- the run (platform_observer.cpp; the task-path hooks are workers()') ----
  void begin(const core::RunInfo& run);
  void end();
  void iteration(std::uint64_t iteration, std::uint64_t now);
  // A worker's thread blocks in / returns from an MPI call (mpi-slack).
  void mpi_enter(int worker);
  void mpi_leave(int worker);
  void report(std::ostream& os) const;

 private:
  void choose_dvfs(const core::Config& cfg);
  void choose_meter(const core::Config& cfg);
  void choose_thermal(const core::Config& cfg);
  // jouled (platform_service.cpp): the session, opened once and shared by
  // DVFS and the meter; nullptr with service_why_ when it is not usable.
  service_client::Session* open_service(const PlatformSettings& ps);
  bool choose_service_dvfs(const PlatformSettings& ps, bool asked, const std::string& before);
  bool choose_service_meter(const PlatformSettings& ps, bool asked, std::string* why);
  void report_chips(std::ostream& os) const;
  void report_residency(std::ostream& os) const;
  void report_labels(std::ostream& os) const;

  Sysfs sysfs_;
  Machine machine_;
  PowerModel model_;
  Frequencies freq_;
  Counters counters_;
  WorkerAccounts workers_;
  Sensors sensors_;
  std::string dvfs_note_, meter_note_, thermal_note_;
  std::shared_ptr<service_client::Session> service_;
  std::string service_why_;
  bool service_tried_ = false;
  std::string start_frequency_;  // JOULE_DVFS_START
  bool active_ = false;
  bool task_clock_meter_ = false;  // the papi meter's fallback (choose_meter)
  // The layer above (the energy controller), if any.
  std::unique_ptr<PlatformListener> listener_;
  bool listener_live_ = false;
};

// " 2.40 GHz 75.0% 1.20 GHz 25.0%": time at each P-state of `table` (kHz,
// ascending), highest first, from a residency vector (ns per level).
std::string residency_text(const std::vector<std::uint32_t>& table,
                           const std::vector<std::uint64_t>& res);

// The platform of the running runtime; nullptr when the layer is off.
Platform* current_platform() noexcept;
void set_current_platform(Platform* p) noexcept;

// Whether this configuration needs the platform layer at all (else the
// runtime runs unobserved). Probes cpufreq for JOULE_DVFS=auto.
bool platform_wanted(const core::Config& cfg);

}  // namespace joule::platform
