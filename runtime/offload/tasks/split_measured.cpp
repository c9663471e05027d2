// The work splitter's measured side: each device's powers fitted from the
// energy its meter read over an iteration, the iterations' totals, and the
// GPU's SM clocks (which the search may choose only when NVML lets joule
// lock one).
#include <algorithm>
#include <cmath>
#include <string>

#include "device.hpp"
#include "split_controller.hpp"

namespace joule::card_tasks {
namespace {

// The GPU's supported SM clocks in GHz, highest first.
std::vector<double> gpu_clocks_ghz(const cuda::GpuMeter& m) {
  std::vector<double> f;
  for (int mhz : m.sm_clocks_mhz()) f.push_back(mhz / 1000.0);
  return f;
}

}  // namespace

// The P-states to choose from; a GPU's only when the driver lets the
// splitter lock its clock (a refusal is why the clocks stay fixed).
void SplitController::start_search(double ghz, const offload::Device* card) {
  freqs_ = gpu_ ? gpu_clocks_ghz(*meters_.gpu()) : card->frequencies();
  auto at = std::find(freqs_.begin(), freqs_.end(), ghz);
  if (gpu_) {
    // NVML's current clock need not be a supported one: the nearest is.
    at = std::min_element(freqs_.begin(), freqs_.end(), [&](double a, double b) {
      return std::abs(a - ghz) < std::abs(b - ghz);
    });
    if (freqs_.size() < 2) {
      clocks_note_ = "NVML lists no SM clocks to choose from";
      return;
    }
    const cuda::GpuClockChange c = meters_.gpu()->set_sm_clock_mhz(int(std::lround(*at * 1000)));
    if (!c.ok) {
      clocks_note_ = c.message;
      return;
    }
    f0_ = *at;
  }
  if (freqs_.size() > 1 && at != freqs_.end())
    search_.emplace(int(freqs_.size()), int(at - freqs_.begin()));
}

// Each device's powers from the energy its meter measured over the
// iteration: busy for its part's seconds, idle for the rest of it.
void SplitController::fit(const double secs[2]) {
  const SplitEnergy e = meters_.read();
  const double t = std::max(secs[0], secs[1]);
  const std::optional<double> joules[2] = {e.cpu, e.gpu};
  add_totals(secs, e);
  for (std::size_t i = 0; i < 2; ++i) {
    if (!joules[i]) continue;
    fit_[i].add(secs[i], t - secs[i], *joules[i]);
    dev_[i].busy_watts = fit_[i].power().busy_watts;
    dev_[i].idle_watts = fit_[i].power().idle_watts;
  }
}

void SplitController::add_totals(const double secs[2], const SplitEnergy& e) {
  const double t = std::max(secs[0], secs[1]);
  const auto modelled = [&](std::size_t i) {
    return dev_[i].busy_watts * secs[i] + dev_[i].idle_watts * (t - secs[i]);
  };
  const bool first = totals_.iterations++ == 0;
  totals_.seconds += t;
  totals_.cpu_joules += e.cpu ? *e.cpu : modelled(0);
  totals_.gpu_joules += e.gpu ? *e.gpu : modelled(1);
  totals_.cpu_measured = e.cpu.has_value() && (first || totals_.cpu_measured);
  totals_.gpu_measured = e.gpu.has_value() && (first || totals_.gpu_measured);
}

std::string SplitController::clocks() const {
  if (!gpu_) {
    const std::string f = std::to_string(freq()).substr(0, 4) + " GHz";
    return search_ ? "card " + f + ", chosen by the splitter" : "card " + f + ", fixed";
  }
  const cuda::GpuMeter& g = *meters_.gpu();
  const std::string now = "sm " + std::to_string(g.sm_clock_mhz()) + " MHz";
  if (search_)
    return now + ", chosen by the splitter among " + std::to_string(freqs_.size()) + " clocks";
  return now + ", clocks fixed (" + clocks_note_ + ")";
}

}  // namespace joule::card_tasks
