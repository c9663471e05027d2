// Cabrera et al.'s Splitter (scheduler/energy/splitter.hpp) over two
// devices, the host's cores and the card, fed with measured rates and the
// devices' power models, and (card_freq "auto") energy::PStateSearch
// choosing the card's P-state. joule::work_splitter (joule/split.hpp) is
// this class behind the public types; docs/offload.md, "Splitting work with
// the card".
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "pstate_search.hpp"
#include "splitter.hpp"

namespace joule::offload {

struct DevicePower {
  double busy_watts = 0;  // while computing
  double idle_watts = 0;  // while waiting for the other device
};

// joule::split_options: zero powers take the devices' models, null strings
// the configuration (JOULE_ENERGY_SPLIT_OBJECTIVE, JOULE_CARD_FREQ).
struct SplitSettings {
  const char* objective = nullptr;  // "energy", "time", "edp"
  DevicePower host, card;
  double delta = 0.1;
  double delta_min = 0.005;
  const char* card_freq = nullptr;  // "auto", "fixed"
};

class SplitController {
 public:
  // Starts even (half each). Throws joule::error(JOULE_ERR_INVALID) for
  // bad deltas, negative powers, an unknown objective or card_freq.
  explicit SplitController(const SplitSettings& s);
  ~SplitController();  // puts the card back at the P-state it found
  SplitController(const SplitController&) = delete;
  SplitController& operator=(const SplitController&) = delete;

  double card_share() const;
  std::int64_t cut(std::int64_t n) const;  // host [0, cut), card [cut, n)
  bool converged() const;
  DevicePower host_power() const;
  DevicePower card_power() const;
  double card_freq_ghz() const;
  bool card_freq_settled() const;
  void record(std::int64_t host_units, double host_s, std::int64_t card_units, double card_s);

 private:
  struct Plan;
  explicit SplitController(const Plan& p);

  double freq() const { return search_ ? freqs_[std::size_t(search_->level())] : f0_; }
  double card_busy_at(double ghz) const;
  void set_freq(double ghz);
  void observe(std::int64_t units, const double secs[2]);
  void apply(energy::PStateSearch::Move m, double from_ghz);

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
};

}  // namespace joule::offload
