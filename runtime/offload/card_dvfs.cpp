// The card's emulated DVFS. The card has P-states (JOULE_CARD_FREQS); at
// frequency f its threads run f_max/f times slower (CardPool::stretch keeps
// each thread busy after its work, as the host's emulated DVFS does) and the
// dynamic terms of its power model (per busy core, per busy thread) scale by
// (f/f_max)^3; idle power does not. So lowering the card's frequency trades
// time for dynamic energy, and the splitter sees both: the rate it measures
// and the card's power at the current P-state. Which P-state to use is the
// work splitter's choice (JOULE_CARD_FREQ=auto, api/src/split_api.cpp); the
// card goes back to its starting one when a runtime restarts on it.
#include <cmath>
#include <string>

#include "emulated_card.hpp"
#include "joule/types.hpp"
#include "text.hpp"

namespace joule::offload {
namespace {

std::string list(const std::vector<double>& f) {
  std::string out;
  for (double d : f) out += (out.empty() ? "" : ", ") + core::format_number("%g", d);
  return out;
}

bool is_pstate(const CardSettings& cfg, double ghz) {
  for (double f : cfg.freqs)
    if (std::fabs(f - ghz) < 1e-9) return true;
  return false;
}

}  // namespace

double card_frequency(const CardSettings& cfg) {
  if (cfg.freqs.empty()) return 0;
  if (cfg.freq == 0) return cfg.freqs.front();
  if (!is_pstate(cfg, cfg.freq))
    throw joule::error(
        JOULE_ERR_CONFIG,
        "joule: configuration error: JOULE_CARD_FREQ=" + core::format_number("%g", cfg.freq) +
            ": not one of the card's P-states (JOULE_CARD_FREQS: " + list(cfg.freqs) + " GHz)");
  return cfg.freq;
}

void reset_card_frequency(Device& card) {
  const CardSettings* cfg = card.card_config();
  if (!cfg || cfg->freqs.empty()) return;
  const double start = card_frequency(*cfg);
  if (card.frequency() != start) card.set_frequency(start);
}

std::uint32_t speed_permille(const CardSettings& cfg, double ghz) {
  if (cfg.freqs.empty() || ghz <= 0) return 1000;
  return std::uint32_t(std::lround(1000.0 * ghz / cfg.freqs.front()));
}

void EmulatedCard::set_frequency(double ghz) {
  if (!is_pstate(cfg_, ghz))
    throw joule::error(JOULE_ERR_INVALID, "joule card: " + core::format_number("%g", ghz) +
                                              " GHz is not one of the card's P-states (" +
                                              list(cfg_.freqs) + " GHz; JOULE_CARD_FREQS)");
  freq_.store(ghz);
  area_->counters.speed_permille.store(speed_permille(cfg_, ghz), std::memory_order_relaxed);
}

}  // namespace joule::offload
