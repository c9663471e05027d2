// The platform layer's internal API: what energy policies (and tests) call
// while the runtime runs. CPUs here are "platform CPUs": the CPU a worker's
// DVFS and energy refer to (worker_cpu): its real CPU, or with a synthetic
// JOULE_TOPOLOGY and emulated DVFS, model PU (worker mod N), so a 2-CPU VM
// can pretend to be several chips.
//
//   platform::Platform* p = platform::current_platform();  // nullptr: layer off
//   if (p && p->can_set_frequency())
//     p->set_chip_frequency(0, p->pstates(p->worker_cpu(0)).front());
#pragma once

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dvfs.hpp"
#include "machine.hpp"
#include "meter.hpp"
#include "platform_settings.hpp"
#include "power_model.hpp"
#include "sysfs.hpp"
#include "thermal.hpp"

namespace joule::platform::service_client {
class Session;
}

namespace joule::core {
struct Config;
struct Task;
struct RunInfo;
}  // namespace joule::core

namespace joule::platform {

struct EnergyReading {
  double seconds = 0;                     // since the runtime started
  std::string source;                     // "model", "rapl", "papi", "model (perf::TASK-CLOCK)"
  bool chips_measured = false;            // chip_joules from a meter (else the model)
  std::vector<double> chip_joules;        // per chip of the machine model
  std::vector<double> chip_model_joules;  // the power model's view, always
  std::vector<double> worker_joules;      // per worker's core, modelled
  std::vector<MeterDomain> domains;       // every measured domain
  double total_joules() const;
};

struct LabelStats {
  std::string label;
  std::uint64_t tasks = 0;
  std::uint64_t ns = 0;             // body time
  std::uint64_t stretched_ns = 0;   // added by emulated DVFS
  std::vector<long long> counters;  // per counter_names()
};

struct WorkerSlot;
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

  // ---- what policies use ----
  const Machine& machine() const noexcept { return machine_; }
  Dvfs& dvfs() noexcept { return *dvfs_; }
  bool can_set_frequency() const noexcept { return dvfs_->can_set(); }
  int num_workers() const noexcept { return int(worker_cpu_.size()); }
  int worker_cpu(int worker) const { return worker_cpu_[std::size_t(worker)]; }
  int chip_of(int cpu) const { return machine_.chip_of(cpu); }
  int num_chips() const noexcept { return machine_.num_chips(); }
  // Platform CPUs of a chip that run a worker, ascending.
  std::vector<int> worker_cpus_of_chip(int chip) const;
  // Ascending kHz; the nominal table when the CPU's frequency is not controlled.
  const std::vector<std::uint32_t>& pstates(int cpu) const;
  std::uint32_t frequency(int cpu) const;
  bool set_core_frequency(int cpu, std::uint32_t khz);
  // Every controlled CPU of the chip (the whole domain of each).
  bool set_chip_frequency(int chip, std::uint32_t khz);
  EnergyReading read_energy();
  std::vector<double> temperatures();  // per chip, Celsius (NaN: unknown)
  const std::vector<std::string>& counter_names() const noexcept { return counter_names_; }
  // Per task label, merged over workers (complete after the runtime stopped).
  std::vector<LabelStats> label_stats() const;
  std::string describe() const;
  bool active() const noexcept { return active_; }

  // ---- what a listener (platform_listener.hpp) reads ----
  const PowerModel& model() const noexcept { return model_; }
  // A worker's accounting (after begin; worker < num_workers()).
  WorkerSlot& slot(int worker) { return *slots_[std::size_t(worker)]; }
  const WorkerSlot& slot(int worker) const { return *slots_[std::size_t(worker)]; }
  // Per chip, Celsius, as of the last sample (NaN: unknown).
  std::vector<double> last_temperatures() const;
  // The reading at end (complete after the runtime stopped).
  const EnergyReading& final_reading() const noexcept { return final_; }
  std::uint64_t end_ns() const noexcept { return end_ns_; }
  // Attaches the layer above (the energy controller), before begin. The
  // listener is asked live() here, once.
  void set_listener(std::unique_ptr<PlatformListener> l);
  PlatformListener* listener() const noexcept { return listener_.get(); }

  // ---- the observer's hooks (platform_hooks.cpp) ----
  void begin(const core::RunInfo& run);
  void end();
  bool has_slot(int worker) const noexcept {
    return worker >= 0 && std::size_t(worker) < slots_.size();
  }
  void worker_start(int worker);
  void worker_stop(int worker);
  void task_start(const core::Task& t, int worker);
  void task_end(const core::Task& t, int worker, std::uint64_t start_ns, std::uint64_t end_ns);
  void idle(int worker, bool sleeping, std::uint64_t now);
  void periodic(std::uint64_t now);
  void iteration(std::uint64_t iteration, std::uint64_t now);
  // A worker's thread blocks in / returns from an MPI call (mpi-slack).
  void mpi_enter(int worker);
  void mpi_leave(int worker);
  // On the worker's own thread: its time so far charged at `level`.
  void charge_worker(int worker, std::uint64_t until, int level);
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
  void apply_start_frequency();
  double memory_bound(WorkerSlot& s, const char* label) const;
  // Charges the time since the slot's last charge at `level` (-1: the
  // CPU's level now). Only on the worker's own thread.
  void charge(WorkerSlot& s, std::uint64_t now, int level = -1) const;
  std::vector<std::uint64_t> active_of(const WorkerSlot& s, std::uint64_t now,
                                       std::uint64_t* sleep) const;
  EnergyReading reading_at(std::uint64_t now) const;
  void sample_locked(std::uint64_t now);
  void report_residency(std::ostream& os) const;
  void report_labels(std::ostream& os) const;
  // Trace samples (platform_trace.cpp): the worker's starting frequency,
  // once, on its own thread; power and temperatures at each sample.
  void trace_cpus();
  void trace_first(WorkerSlot& s) const noexcept;
  void trace_sample(std::uint64_t now, const EnergyReading& r);

  Sysfs sysfs_;
  Machine machine_;
  PowerModel model_;
  std::unique_ptr<Dvfs> dvfs_;
  std::unique_ptr<EnergyMeter> meter_;
  std::unique_ptr<Thermal> thermal_;
  std::string dvfs_note_, meter_note_, thermal_note_, counters_note_;
  std::shared_ptr<service_client::Session> service_;
  std::string service_why_;
  bool service_tried_ = false;
  std::vector<std::uint32_t> nominal_;  // P-states of uncontrolled CPUs
  std::string start_frequency_;         // JOULE_DVFS_START
  std::vector<std::pair<std::string, double>> memory_bound_;
  double memory_bound_default_ = 0;
  bool counters_ = false, task_clock_meter_ = false, active_ = false;
  std::vector<std::string> counter_events_, counter_names_;
  int task_clock_index_ = -1;

  std::vector<int> worker_cpu_;
  std::vector<std::unique_ptr<WorkerSlot>> slots_;
  std::uint64_t start_ns_ = 0, end_ns_ = 0;
  std::atomic<std::uint64_t> last_sample_ns_{0};
  mutable std::mutex sample_mu_;
  std::vector<double> max_temp_, last_temp_;
  EnergyReading final_;
  bool ended_ = false;
  std::uint64_t traced_ns_ = 0;  // the last power sample in the trace (under sample_mu_)
  double traced_joules_ = 0;
  // The layer above (the energy controller), if any.
  std::unique_ptr<PlatformListener> listener_;
  bool listener_live_ = false;
  void listener_task_end(WorkerSlot& s, const core::Task& t, std::uint64_t own, std::uint64_t extra,
                         std::uint64_t now);
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
