// The RAPL zones of powercap sysfs (the kernel's
// Documentation/power/powercap/powercap.rst): intel-rapl:N is package N,
// intel-rapl:N:M its subzones (core, uncore, dram). Shared by the RAPL meter
// and jouled's per-job energy ledger, which must not pull in the rest of
// the platform layer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meter.hpp"
#include "sysfs.hpp"

namespace joule::platform {

inline constexpr const char* kPowercapDir = "/sys/class/powercap";

struct RaplZone {
  std::string dir;                 // kernel path of the zone's directory
  MeterDomain domain;              // name "package-0" or "package-0/dram", kind, chip; joules 0
  std::uint64_t max_range_uj = 0;  // max_energy_range_uj; 0: unknown
  std::uint64_t energy_uj = 0;     // energy_uj when discovered
};

// Every intel-rapl zone whose energy_uj is readable, in directory order.
std::vector<RaplZone> discover_rapl_zones(const Sysfs& fs);

// Why discover_rapl_zones found nothing, for a message.
std::string no_rapl_reason(const Sysfs& fs);

}  // namespace joule::platform
