// The power model: busy power of one core per frequency, idle power of a
// sleeping core, and uncore power per chip. Busy power is interpolated
// linearly in f^3 between calibration points (dynamic power grows about as
// f^3), so two points give P(f) = a + b*f^3 exactly through both; the
// default points are Padoin's one-busy-core package powers (§5.1.1), 20.4 W at
// 1.2 GHz and 36.3 W at 2.4 GHz.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace joule::platform {

class PowerModel {
 public:
  // points: (GHz, W), any order; at least one.
  PowerModel(std::vector<std::pair<double, double>> points, double idle_w, double uncore_w);

  double busy_watts(std::uint32_t khz) const;
  double idle_watts() const noexcept { return idle_w_; }
  double uncore_watts() const noexcept { return uncore_w_; }

  // Energy of one core: active_ns[i] at table_khz[i], plus sleep_ns idle.
  double core_joules(const std::vector<std::uint32_t>& table_khz,
                     const std::vector<std::uint64_t>& active_ns, std::uint64_t sleep_ns) const;
  // Uncore energy of one chip over wall_ns.
  double uncore_joules(std::uint64_t wall_ns) const noexcept {
    return uncore_w_ * double(wall_ns) * 1e-9;
  }

 private:
  std::vector<std::pair<double, double>> points_;  // ascending GHz
  double idle_w_, uncore_w_;
};

}  // namespace joule::platform
