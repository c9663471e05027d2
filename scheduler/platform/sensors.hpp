// What the platform measures or models while the runtime runs: energy (a
// meter backend, meter.hpp: rapl, papi, service; else the power model over
// the workers' accounted time, worker_accounts.hpp) and temperature
// (thermal.hpp: hwmon sensors, else an RC model). Both are sampled together,
// at most every 20 ms and under one lock, because the RC model's input is
// the energy reading; the final sample, taken at the end, is what the
// report and the layer above read afterwards.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "counters.hpp"
#include "meter.hpp"
#include "power_model.hpp"
#include "thermal.hpp"
#include "worker_accounts.hpp"

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

class Sensors {
 public:
  Sensors(const PowerModel& model, const WorkerAccounts& workers, const Counters& counters,
          int chips);
  Sensors(const Sensors&) = delete;
  Sensors& operator=(const Sensors&) = delete;

  // The backends probing chose (platform.cpp); no meter: the model.
  void set_meter(std::unique_ptr<EnergyMeter> meter) { meter_ = std::move(meter); }
  void set_thermal(std::unique_ptr<Thermal> thermal) { thermal_ = std::move(thermal); }
  const EnergyMeter* meter() const noexcept { return meter_.get(); }
  const Thermal& thermal() const noexcept { return *thermal_; }

  // The run starts at start_ns: reset before the workers' slots are built,
  // start (meter, first temperatures) once everything else has begun.
  void reset(std::uint64_t start_ns);
  void start();
  // A sample if the last is 20 ms old (the observer's periodic hook).
  void periodic(std::uint64_t now);
  // The final sample; readings after it return it.
  void finish(std::uint64_t now);

  EnergyReading read_energy();
  // Per chip, Celsius (NaN: unknown): sampled now / as of the last sample.
  std::vector<double> temperatures();
  std::vector<double> last_temperatures() const;
  // Per chip, the highest temperature sampled.
  const std::vector<double>& max_temperatures() const noexcept { return max_temp_; }
  // The reading at end (complete after the runtime stopped).
  const EnergyReading& final_reading() const noexcept { return final_; }
  std::uint64_t end_ns() const noexcept { return end_ns_; }

 private:
  EnergyReading reading_at(std::uint64_t now) const;
  void sample_locked(std::uint64_t now);
  // The power and temperature samples of a trace (platform_trace.cpp).
  void trace_sample(std::uint64_t now, const EnergyReading& r);

  const PowerModel& model_;
  const WorkerAccounts& workers_;
  const Counters& counters_;
  const int chips_;
  std::unique_ptr<EnergyMeter> meter_;
  std::unique_ptr<Thermal> thermal_;
  std::uint64_t start_ns_ = 0, end_ns_ = 0;
  std::atomic<std::uint64_t> last_sample_ns_{0};
  mutable std::mutex sample_mu_;
  std::vector<double> max_temp_, last_temp_;
  EnergyReading final_;
  bool ended_ = false;
  std::uint64_t traced_ns_ = 0;  // the last power sample in the trace (under sample_mu_)
  double traced_joules_ = 0;
};

}  // namespace joule::platform
