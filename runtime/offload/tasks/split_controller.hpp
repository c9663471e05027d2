// Cabrera et al.'s Splitter (scheduler/energy/splitter.hpp) over two
// devices, the host's cores and the card or a CUDA GPU, fed with measured
// rates and the devices' powers: fitted from measured energy where a meter
// reads it (split_meters.hpp, split_power_fit.hpp), else their power models;
// and (card_freq "auto") energy::PStateSearch choosing the card's P-state or
// the GPU's SM clock. joule::work_splitter (joule/split.hpp) is this class
// behind the public types; docs/offload.md, "Splitting work with the card"
// and "Splitting work between the CPUs and a GPU".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu_meter.hpp"
#include "pstate_search.hpp"
#include "split_meters.hpp"
#include "split_power_fit.hpp"
#include "splitter.hpp"

namespace joule::offload {
class Device;
}  // namespace joule::offload

namespace joule::card_tasks {

struct DevicePower {
  double busy_watts = 0;  // while computing
  double idle_watts = 0;  // while waiting for the other device
};

// joule::split_options: zero powers take the devices' models, null strings
// the configuration (JOULE_ENERGY_SPLIT_OBJECTIVE, JOULE_CARD_FREQ).
struct SplitSettings {
  const char* objective = nullptr;  // "energy", "time", "edp"
  DevicePower host = {}, card = {};
  double delta = 0.1;
  double delta_min = 0.005;
  const char* card_freq = nullptr;  // "auto", "fixed" (the GPU: its SM clock)
  bool gpu = false;                 // the second device: a CUDA GPU, not the card
  int device_num = 0;               // which GPU (the driver's ordinal)
  double share = -1;                // 0..1: the second device's share, fixed; < 0: decided
};

// The energy of the iterations recorded so far: measured where a meter
// read it, else each device's power times its busy and idle seconds.
struct SplitTotals {
  std::int64_t iterations = 0;
  double seconds = 0;  // summed iteration times (the slower part's)
  double cpu_joules = 0, gpu_joules = 0;
  bool cpu_measured = false, gpu_measured = false;  // every iteration's
};

class SplitController {
 public:
  // Starts even (half each). Throws joule::error(JOULE_ERR_INVALID) for
  // bad deltas, negative powers, an unknown objective or card_freq.
  // A GPU without a driver, or device_num past the GPUs: JOULE_ERR_INVALID
  // naming why.
  explicit SplitController(const SplitSettings& s);
  // The GPU measured by `gpu` (a test's double of NVML) instead of the
  // meter of the GPU s.device_num.
  SplitController(const SplitSettings& s, std::unique_ptr<cuda::GpuMeter> gpu);
  ~SplitController();  // puts the card back at the P-state it found, the GPU at its clocks
  SplitController(const SplitController&) = delete;
  SplitController& operator=(const SplitController&) = delete;

  double card_share() const;
  std::int64_t cut(std::int64_t n) const;  // host [0, cut), card [cut, n)
  bool converged() const;
  DevicePower host_power() const;
  DevicePower card_power() const;
  double card_freq_ghz() const;
  bool card_freq_settled() const;
  // Where the powers come from: "gpu: nvml, cpu: rapl", "card: model, cpu: model", ...
  std::string energy_source() const { return meters_.source(); }
  // The GPU's SM clock and whether the splitter may choose it, or "clocks
  // fixed (why)"; the card's P-state.
  std::string clocks() const;
  // The counters at the start of an iteration; record() fits the powers
  // from their rise.
  void start_iteration() { meters_.start(); }
  const SplitTotals& totals() const { return totals_; }
  void record(std::int64_t host_units, double host_s, std::int64_t card_units, double card_s);

 private:
  struct Plan;
  static Plan make_plan(const SplitSettings& s, cuda::GpuMeter* gpu);
  SplitController(const Plan& p,
                  std::unique_ptr<cuda::GpuMeter>&& gpu);  // gpu: moved from after p is made

  double freq() const { return search_ ? freqs_[std::size_t(search_->level())] : f0_; }
  double card_busy_at(double ghz) const;
  void set_freq(double ghz);
  void observe(std::int64_t units, const double secs[2]);
  void apply(energy::PStateSearch::Move m, double from_ghz);
  void start_search(double ghz, const offload::Device* card);
  void fit(const double secs[2]);
  void add_totals(const double secs[2], const SplitEnergy& e);

  energy::Splitter splitter_;
  std::vector<energy::DeviceSample> dev_;  // [0] host, [1] card; rates in shares per second
  energy::Objective objective_;
  energy::SplitterOptions options_;
  // Choosing the card's P-state (card_freq "auto").
  std::vector<double> freqs_;  // the card's P-states, highest first
  double f0_ = 0;              // the P-state found at construction, restored at the end
  DevicePower card0_;          // the card's power at f0
  std::optional<energy::PStateSearch> search_;
  std::vector<double> kept_split_;  // the converged split and card sample at the kept level
  energy::DeviceSample kept_card_;
  double host_rate_ref_ = 0;     // the host's rate when the search stopped
  std::int64_t last_units_ = 0;  // the iteration size the search measured
  // Measured energy: the meters and each device's fitted powers.
  SplitMeters meters_;
  PowerFit fit_[2];
  bool gpu_ = false;
  std::string clocks_note_;  // why the GPU's clocks stay as they are
  bool fixed_ = false;       // SplitSettings::share given: measure only
  SplitTotals totals_;
};

}  // namespace joule::card_tasks
