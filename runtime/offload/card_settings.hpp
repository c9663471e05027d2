// The many-core card's settings (keys in config_keys_card.cpp;
// docs/offload.md, docs/card.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "choices.hpp"
#include "config.hpp"

namespace joule::offload {

enum class CardMode { none, emulated, attach };
inline constexpr std::pair<const char*, CardMode> kCardModes[] = {
    {"none", CardMode::none}, {"emulated", CardMode::emulated}, {"attach", CardMode::attach}};

struct CardSettings {
  CardMode mode = CardMode::none;                   // JOULE_CARD
  std::string daemon = "default";                   // JOULE_CARD_DAEMON: the daemon attach uses
  std::string topology = "package:1 core:60 pu:4";  // JOULE_CARD_TOPOLOGY (hwloc synthetic)
  int threads = 0;                                  // JOULE_CARD_THREADS; 0: every PU
  std::string affinity = "compact";                 // JOULE_CARD_AFFINITY
  std::vector<int> cpus;                // JOULE_CARD_CPUS: host CPUs running the card; empty: all
  double pcie_gbs = 6.0;                // JOULE_CARD_PCIE_GBS: emulated PCIe bandwidth, GB/s
  double power_idle = 90.0;             // JOULE_CARD_POWER: idle W,
  double power_core = 1.2;              //   + W per active core,
  double power_thread = 0.15;           //   + W per busy thread
  int staging_mb = 64;                  // JOULE_CARD_STAGING_MB: shared transfer area
  std::vector<double> freqs = {1.053};  // JOULE_CARD_FREQS: the card's P-states, GHz
  double freq = 0;                      // JOULE_CARD_FREQ: the one it starts at; 0: highest
  bool freq_auto = false;               // JOULE_CARD_FREQ=auto: work splitters choose it
};

// JOULE_CARD, JOULE_CARD_DAEMON, JOULE_CARD_TOPOLOGY, ... (config_keys_card.cpp).
std::vector<core::ConfigKey> card_config_keys();

}  // namespace joule::offload
