// Energy readings (measured or modelled) and temperature samples.
#include "sensors.hpp"

#include <algorithm>
#include <cmath>

#include "observer.hpp"
#include "trace_api.hpp"

namespace joule::platform {

double EnergyReading::total_joules() const {
  double t = 0;
  for (double j : chip_joules) t += j;
  return t;
}

Sensors::Sensors(const PowerModel& model, const WorkerAccounts& workers, const Counters& counters,
                 int chips)
    : model_(model), workers_(workers), counters_(counters), chips_(chips) {}

void Sensors::reset(std::uint64_t start_ns) {
  start_ns_ = start_ns;
  last_sample_ns_.store(start_ns_);
  traced_ns_ = start_ns_;
  traced_joules_ = 0;
}

void Sensors::start() {
  if (meter_) meter_->start();
  max_temp_ = last_temp_ =
      thermal_->update(start_ns_, std::vector<double>(std::size_t(chips_), 0.0));
}

void Sensors::periodic(std::uint64_t now) {
  if (now - last_sample_ns_.load(std::memory_order_relaxed) < 20'000'000)
    return;  // every 20 ms at most
  std::lock_guard guard(sample_mu_);
  sample_locked(now);
}

void Sensors::sample_locked(std::uint64_t now) {
  last_sample_ns_.store(now, std::memory_order_relaxed);
  if (meter_) meter_->sample();
  const EnergyReading r = reading_at(now);
  last_temp_ = thermal_->update(now, r.chip_joules);
  max_temp_.resize(last_temp_.size(), -1e9);
  for (std::size_t c = 0; c < last_temp_.size(); ++c)
    if (!std::isnan(last_temp_[c])) max_temp_[c] = std::max(max_temp_[c], last_temp_[c]);
  if (core::trace::enabled()) trace_sample(now, r);
}

void Sensors::finish(std::uint64_t now) {
  std::lock_guard guard(sample_mu_);
  sample_locked(now);
  end_ns_ = now;
  final_ = reading_at(now);
  ended_ = true;
}

EnergyReading Sensors::reading_at(std::uint64_t now) const {
  EnergyReading r;
  r.seconds = double(now - start_ns_) * 1e-9;
  const auto chips = std::size_t(chips_);
  r.chip_model_joules.assign(chips, 0.0);
  std::vector<bool> used(chips, false);
  for (const auto& s : workers_.slots()) {
    std::uint64_t sleep = 0;
    const auto active = workers_.active_of(*s, now, &sleep);
    r.worker_joules.push_back(model_.core_joules(*s->table, active, sleep));
    r.chip_model_joules[std::size_t(s->chip)] += r.worker_joules.back();
    used[std::size_t(s->chip)] = true;
  }
  for (std::size_t c = 0; c < chips; ++c)
    if (used[c]) r.chip_model_joules[c] += model_.uncore_joules(now - start_ns_);
  r.chip_joules = r.chip_model_joules;
  r.source = counters_.task_clock() ? "model (perf::TASK-CLOCK)" : "model";
  if (meter_) {
    r.domains = meter_->totals();
    std::vector<double> measured(chips, 0.0);
    for (const auto& d : r.domains)
      if (d.kind == "package" && d.chip >= 0 && std::size_t(d.chip) < chips) {
        measured[std::size_t(d.chip)] += d.joules;
        r.chips_measured = true;
      }
    if (r.chips_measured) {
      r.chip_joules = measured;
      r.source = meter_->name();
    }
  }
  return r;
}

EnergyReading Sensors::read_energy() {
  if (ended_) return final_;
  std::lock_guard guard(sample_mu_);
  const std::uint64_t now = core::now_ns();
  if (meter_) meter_->sample();
  return reading_at(now);
}

std::vector<double> Sensors::temperatures() {
  if (ended_) return last_temp_;
  std::lock_guard guard(sample_mu_);
  sample_locked(core::now_ns());
  return last_temp_;
}

std::vector<double> Sensors::last_temperatures() const {
  std::lock_guard guard(sample_mu_);
  return last_temp_;
}

}  // namespace joule::platform
