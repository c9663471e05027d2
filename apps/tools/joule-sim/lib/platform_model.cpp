#include "platform_model.hpp"

#include <cmath>

namespace joule::sim {

PlatformModel::PlatformModel(const PlatformSpec& spec) : spec_(spec) {
  for (std::size_t l = 0; l < spec_.pstates_ghz.size(); ++l) {
    khz_.push_back(std::uint32_t(std::lround(spec_.pstates_ghz[l] * 1e6)));
    busy_table_.push_back(spec_.power.watts(spec_.pstates_ghz[l], l));
  }
  level_.assign(std::size_t(domains()), top_level());
  views_.resize(std::size_t(domains()));
  for (int c = 0; c < cores(); ++c) views_[std::size_t(domain_of(c))].cores.push_back(c);
  for (auto& v : views_) {
    v.pstates = khz_;
    v.busy_watts = busy_table_;
    v.chip = chip_of(v.cores.front());
  }
  settle();  // chips start as if every core had been busy at fmax
}

void PlatformModel::settle() {
  const double full = uncore_watts() + spec_.cores_per_chip * busy_table_.back();
  temp_.clear();
  for (int c = 0; c < spec_.chips; ++c) temp_.push_back(steady_state(c, full));
}

bool PlatformModel::set_level(int domain, int level) {
  auto& l = level_[std::size_t(domain)];
  if (l == level) return false;
  l = level;
  return true;
}

double PlatformModel::busy_watts(int core) const {
  return busy_table_[std::size_t(level_[std::size_t(domain_of(core))])];
}

double PlatformModel::wait_watts(int core) const {
  return spec_.wait_busy ? busy_watts(core) : spec_.wait_power_w;
}

double PlatformModel::idle_watts(int core) const {
  return spec_.idle_power_w < 0 ? wait_watts(core) : spec_.idle_power_w;
}

double PlatformModel::steady_state(int chip, double watts) const {
  const auto& h = spec_.hotspot_c;
  const double hot = h.empty() ? 0 : h[std::size_t(chip) % h.size()];
  return spec_.thermal_alpha * (spec_.air_c + hot) + spec_.thermal_beta * watts +
         spec_.thermal_gamma;
}

void PlatformModel::advance_thermal(double dt, const std::vector<double>& watts) {
  const double decay = std::exp(-dt / spec_.thermal_tau_s);
  for (int c = 0; c < spec_.chips; ++c) {
    const double ss = steady_state(c, watts[std::size_t(c)]);
    temp_[std::size_t(c)] = ss + (temp_[std::size_t(c)] - ss) * decay;
  }
}

// As the live controller's add_domains: one view per domain with the busy
// power of each P-state, its level and chip; one view per chip with its
// temperature and uncore power.
void PlatformModel::fill_observation(energy::Observation& obs) const {
  obs.domains.clear();
  obs.chips.clear();
  obs.domains = views_;
  for (int d = 0; d < domains(); ++d) obs.domains[std::size_t(d)].level = level_[std::size_t(d)];
  for (int c = 0; c < chips(); ++c) obs.chips.push_back({temp_[std::size_t(c)], uncore_watts()});
  obs.idle_watts = spec_.idle_power_w < 0 ? 0 : spec_.idle_power_w;
  obs.switch_cost_s = spec_.dvfs_latency_us * 1e-6;
}

}  // namespace joule::sim
