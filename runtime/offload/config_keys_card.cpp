// Keys of the emulated many-core card (CardSettings); docs/card.md explains
// them. Values that depend on each
// other (threads against the topology's PUs) are checked when the card starts.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>

#include "card_daemon_wire.hpp"
#include "card_settings.hpp"
#include "card_topology.hpp"
#include "config.hpp"
#include "device.hpp"
#include "key_table.hpp"
#include "placement.hpp"

namespace joule::offload {
using core::Config;
using core::ConfigKey;
using core::format_cpu_list;
using core::format_number;
using core::parse_cpu_list;
using core::parse_int;
using core::trim;
namespace {

double parse_positive(std::string_view v, double hi) {
  const std::string s(trim(v));
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !(d > 0.0) || d > hi)
    throw std::invalid_argument("not a positive number");
  return d;
}

std::string fmt(double d) { return format_number("%g", d); }

// "idle,core,thread" in watts, each >= 0.
void parse_power(CardSettings& c, std::string_view v) {
  double w[3];
  for (int i = 0; i < 3; ++i) {
    const auto comma = v.find(',');
    if ((i < 2) == (comma == std::string_view::npos)) throw std::invalid_argument("need 3 values");
    const std::string item(trim(v.substr(0, comma)));
    char* end = nullptr;
    w[i] = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(w[i] >= 0.0) || w[i] > 1e6)
      throw std::invalid_argument("bad watts");
    v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
  }
  c.power_idle = w[0];
  c.power_core = w[1];
  c.power_thread = w[2];
}

// "1.053,0.8,0.6": distinct P-states in GHz, kept in descending order.
std::vector<double> parse_freqs(std::string_view v) {
  std::vector<double> out;
  while (true) {
    const auto comma = v.find(',');
    out.push_back(parse_positive(v.substr(0, comma), 100.0));
    if (comma == std::string_view::npos) break;
    v = v.substr(comma + 1);
  }
  std::sort(out.begin(), out.end(), std::greater<>());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    throw std::invalid_argument("a P-state given twice");
  return out;
}

std::string format_freqs(const std::vector<double>& f) {
  std::string out;
  for (double d : f) out += (out.empty() ? "" : ",") + fmt(d);
  return out;
}

using S = CardSettings;

// Which card, and how its threads sit on it and on the host.
void add_device_keys(core::KeyTable<S>& t) {
  t.choice("JOULE_CARD", &S::mode, core::Choices<CardMode>(kCardModes),
           "the many-core card tasks marked device(mic) run on: none, emulated (a card process "
           "forked at start-up, reached through shared memory) or attach (the running "
           "joule-card daemon JOULE_CARD_DAEMON names)");
  t.custom(
      "JOULE_CARD_DAEMON", "text",
      "a daemon name: 1..64 of A-Z a-z 0-9 . _ - (not starting with .)",
      "the joule-card daemon JOULE_CARD=attach attaches to (socket /tmp/joule-card.NAME.sock)",
      [](S& c, std::string_view v) {
        if (!valid_daemon_name(v)) throw std::invalid_argument("bad daemon name");
        c.daemon = std::string(v);
      },
      [](const S& c) { return c.daemon; });
  t.custom(
      "JOULE_CARD_TOPOLOGY", "text",
      "an hwloc synthetic description such as 'package:1 core:60 pu:4', at most 4096 PUs",
      "the card's topology (cores x hardware threads)",
      [](S& c, std::string_view v) {
        try {
          card_affinity::CardTopology::from_synthetic(std::string(v));
        } catch (const card_affinity::PlacementError& e) {
          throw std::invalid_argument(e.what());
        }
        c.topology = std::string(v);
      },
      [](const S& c) { return c.topology; });
  t.integer("JOULE_CARD_THREADS", &S::threads, 0, 65536,
            "card worker threads (at most the topology's PUs)", "0: every PU");
  t.custom(
      "JOULE_CARD_AFFINITY", "text", card_affinity::kPlacementForm,
      "placement of the card's threads (KMP_AFFINITY type[,permute[,offset]], granularity=fine)",
      [](S& c, std::string_view v) {
        try {
          const card_affinity::PlacementOptions o = card_affinity::parse_placement(trim(v));
          if (o.affinity == card_affinity::Affinity::balanced && (o.permute != 0 || o.offset != 0))
            throw std::invalid_argument("balanced takes no permute or offset");
          if (o.permute > 2) throw std::invalid_argument("permute must be 0..2");
          c.affinity = card_affinity::placement_spec(o);
        } catch (const card_affinity::PlacementError& e) {
          throw std::invalid_argument(e.what());
        }
      },
      [](const S& c) { return c.affinity; });
  t.custom(
      "JOULE_CARD_CPUS", "list", "a CPU list such as 0-3,8 (empty: all)",
      "host CPUs the card's cores are mapped onto (in blocks of consecutive cores)",
      [](S& c, std::string_view v) {
        c.cpus = trim(v).empty() ? std::vector<int>{} : parse_cpu_list(v);
      },
      [](const S& c) { return format_cpu_list(c.cpus); });
}

// The card's models: transfers, power and P-states, and the staging area.
void add_model_keys(core::KeyTable<S>& t) {
  t.custom(
      "JOULE_CARD_PCIE_GBS", "number", "a number of GB/s > 0",
      "emulated PCIe bandwidth: transfers are counted in bytes and modelled seconds",
      [](S& c, std::string_view v) { c.pcie_gbs = parse_positive(v, 1e6); },
      [](const S& c) { return fmt(c.pcie_gbs); });
  t.custom("JOULE_CARD_POWER", "list", "idle,core,thread in watts, e.g. 90,1.2,0.15",
           "card power model: idle W + W per active core + W per busy thread", parse_power,
           [](const S& c) {
             return fmt(c.power_idle) + "," + fmt(c.power_core) + "," + fmt(c.power_thread);
           });
  t.custom(
      "JOULE_CARD_FREQS", "list", "a list of distinct GHz > 0, e.g. 1.053,0.8,0.6",
      "the card's P-states (emulated DVFS: speed and dynamic power scale with the frequency)",
      [](S& c, std::string_view v) { c.freqs = parse_freqs(v); },
      [](const S& c) { return format_freqs(c.freqs); });
  t.custom(
      "JOULE_CARD_FREQ", "number",
      "GHz, one of JOULE_CARD_FREQS (0: the highest), or auto (start at the highest; work "
      "splitters choose it)",
      "the card's frequency at start (checked against JOULE_CARD_FREQS when the card starts); "
      "auto: joule::work_splitter picks the P-state by measurement",
      [](S& c, std::string_view v) {
        c.freq_auto = trim(v) == "auto";
        c.freq = c.freq_auto || trim(v) == "0" ? 0.0 : parse_positive(v, 100.0);
      },
      [](const S& c) { return c.freq_auto ? std::string("auto") : fmt(c.freq); });
  t.integer("JOULE_CARD_STAGING_MB", &S::staging_mb, 1, 65536,
            "size of the shared staging area transfers go through (one task's copies must fit)",
            "MiB");
}

}  // namespace

std::vector<ConfigKey> card_config_keys() {
  core::KeyTable<S> t;
  add_device_keys(t);
  add_model_keys(t);
  return t.keys();
}

// The daemon hands its card settings to hosts and workers as KEY=VALUE
// lines through the same table, so both sides validate them the same way.
std::string card_settings_text(const CardSettings& card) {
  Config c;
  c.get<CardSettings>() = card;
  std::string out;
  for (const ConfigKey& k : card_config_keys())
    if (k.name != "JOULE_CARD" && k.name != "JOULE_CARD_DAEMON")
      out += std::string(k.name) + "=" + k.get(c) + "\n";
  return out;
}

CardSettings parse_card_settings(std::string_view text, CardSettings card) {
  Config c;
  c.get<CardSettings>() = std::move(card);
  const std::vector<ConfigKey> keys = card_config_keys();
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const auto eq = line.find('=');
    if (line.empty() || eq == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, eq);
    for (const ConfigKey& k : keys)
      if (key == k.name) k.set(c, line.substr(eq + 1));
  }
  return c.get<CardSettings>();
}

}  // namespace joule::offload
