// Chip temperatures: real sensors (hwmon coretemp/k10temp, thermal zones
// of type x86_pkg_temp) or the RC model per chip,
//   steady state  T_ss = alpha * (T_air + hotspot_chip) + beta * P_chip + gamma,
//   dynamics      dT/dt = (T_ss - T) / tau,
// stepped exactly over each interval with the interval's average power
// (Sarood & Kale's Eq. 3 with alpha = 1, beta = R_th, gamma = an offset).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sysfs.hpp"

namespace joule::platform {

class Thermal {
 public:
  virtual ~Thermal() = default;
  virtual const char* name() const = 0;
  virtual bool measured() const = 0;
  // Advances to `now` given each chip's energy so far (joules, cumulative),
  // and returns the temperatures in degrees Celsius (NaN: unknown chip).
  virtual std::vector<double> update(std::uint64_t now_ns,
                                     const std::vector<double>& chip_joules) = 0;
};

struct RcParams {
  double air = 22.0, alpha = 1.0, beta = 0.6, gamma = 0.0, tau_s = 20.0;
  std::vector<double> hotspot;  // extra inlet K per chip (may be shorter)
};

class RcThermal final : public Thermal {
 public:
  // Starts every chip at the steady state of `initial_watts`.
  RcThermal(RcParams p, int chips, double initial_watts, std::uint64_t now_ns);
  const char* name() const override { return "model"; }
  bool measured() const override { return false; }
  std::vector<double> update(std::uint64_t now_ns, const std::vector<double>& chip_joules) override;
  double steady_state(int chip, double watts) const;

 private:
  RcParams p_;
  std::vector<double> temp_, last_joules_;
  std::uint64_t last_ns_;
};

// Chip sensors found under the sysfs root (hwmon first, then thermal
// zones); nullptr with the reason when none names a chip.
std::unique_ptr<Thermal> make_sensor_thermal(const Sysfs& fs, int chips, std::string* why);

}  // namespace joule::platform
