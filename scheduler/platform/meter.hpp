// Measured energy meters. Each domain (a RAPL zone or a PAPI energy event)
// is a cumulative counter; sample() adds the increase since the previous
// sample, handling wrap-around, so callers must sample at least once per
// wrap period (minutes for RAPL). The power model is not a meter here: the
// platform computes modelled energy from its own accounting.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sysfs.hpp"

namespace joule::platform {

struct MeterDomain {
  std::string name;  // e.g. "package-0", "package-0/dram"
  std::string kind;  // package, core, uncore, dram, psys, other
  int chip = -1;     // -1: not one chip
  double joules = 0;
};

class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;
  virtual const char* name() const = 0;
  // Takes the baseline: totals count from here.
  virtual void start() = 0;
  // Accumulates the increase since the previous sample.
  virtual void sample() = 0;
  // What the report should add to the meter's name (e.g. that the figure
  // is node-level); empty if nothing.
  virtual std::string note() const { return {}; }
  std::vector<MeterDomain> totals() const {
    std::lock_guard guard(mu_);
    return domains_;
  }

 protected:
  mutable std::mutex mu_;
  std::vector<MeterDomain> domains_;
};

// Energy increase of a counter that wraps after max_range (RAPL's
// max_energy_range_uj): the counter runs 0..max_range, then restarts at 0.
inline std::uint64_t counter_delta(std::uint64_t last, std::uint64_t now, std::uint64_t max_range) {
  if (now >= last) return now - last;
  return max_range >= last ? (max_range - last) + now : now;
}

// RAPL through powercap sysfs (intel-rapl:N zones and their subzones).
// nullptr, with the reason in *why, when no zone's energy_uj is readable.
std::unique_ptr<EnergyMeter> make_rapl_meter(const Sysfs& fs, std::string* why);

// PAPI energy events of the rapl or powercap components. nullptr with a
// reason when PAPI has none (e.g. only perf_event software events).
std::unique_ptr<EnergyMeter> make_papi_meter(std::string* why);

namespace service_client {
class Session;
}
// RAPL energy read by jouled (the `energy` verb) over an open session.
// nullptr with a reason when the service grants no energy control or reads
// no zone. Its note says when the figure is node-level (other jobs share
// the packages).
std::unique_ptr<EnergyMeter> make_service_meter(std::shared_ptr<service_client::Session> session,
                                                std::string* why);

}  // namespace joule::platform
