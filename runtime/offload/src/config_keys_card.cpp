// Keys of the emulated many-core card. Each row sets a member of
// Config::card; docs/offload.md explains them. Values that depend on each
// other (threads against the topology's PUs) are checked when the card starts.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "card_topology.hpp"
#include "config.hpp"
#include "device.hpp"
#include "placement.hpp"

namespace joule::offload {
using rt::Config;
using rt::ConfigKey;
using rt::format_cpu_list;
using rt::format_number;
using rt::parse_cpu_list;
using rt::parse_int;
using rt::trim;
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
void parse_power(Config& c, std::string_view v) {
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
  c.card.power_idle = w[0];
  c.card.power_core = w[1];
  c.card.power_thread = w[2];
}

}  // namespace

std::vector<ConfigKey> card_config_keys() {
  return {
      {"JOULE_CARD", [] { return std::string("none, emulated"); },
       "the many-core card tasks marked device(mic) run on: none, or emulated (a card process "
       "forked at start-up, reached through shared memory)",
       [](Config& c, std::string_view v) {
         if (v != "none" && v != "emulated") throw std::invalid_argument("unknown card");
         c.card.mode = std::string(v);
       },
       [](const Config& c) { return c.card.mode; }},
      {"JOULE_CARD_TOPOLOGY",
       [] {
         return std::string("an hwloc synthetic description such as 'package:1 core:60 pu:4'");
       },
       "the card's topology (cores x hardware threads)",
       [](Config& c, std::string_view v) {
         try {
           CardTopology::from_synthetic(std::string(v));
         } catch (const PlacementError&) {
           throw std::invalid_argument("bad topology");
         }
         c.card.topology = std::string(v);
       },
       [](const Config& c) { return c.card.topology; }},
      {"JOULE_CARD_THREADS", [] { return std::string("an integer 0..65536 (0: every PU)"); },
       "card worker threads (at most the topology's PUs)",
       [](Config& c, std::string_view v) { c.card.threads = int(parse_int(v, 0, 65536)); },
       [](const Config& c) { return std::to_string(c.card.threads); }},
      {"JOULE_CARD_AFFINITY", [] { return std::string(kAffinityNames); },
       "placement of the card's threads (KMP_AFFINITY semantics, granularity=fine)",
       [](Config& c, std::string_view v) {
         try {
           c.card.affinity = affinity_name(parse_affinity(trim(v)));
         } catch (const PlacementError&) {
           throw std::invalid_argument("unknown affinity");
         }
       },
       [](const Config& c) { return c.card.affinity; }},
      {"JOULE_CARD_CPUS", [] { return std::string("a CPU list such as 0-3,8 (empty: all)"); },
       "host CPUs the card's cores are mapped onto (in blocks of consecutive cores)",
       [](Config& c, std::string_view v) {
         c.card.cpus = trim(v).empty() ? std::vector<int>{} : parse_cpu_list(v);
       },
       [](const Config& c) { return format_cpu_list(c.card.cpus); }},
      {"JOULE_CARD_PCIE_GBS", [] { return std::string("a number of GB/s > 0"); },
       "emulated PCIe bandwidth: transfers are counted in bytes and modelled seconds",
       [](Config& c, std::string_view v) { c.card.pcie_gbs = parse_positive(v, 1e6); },
       [](const Config& c) { return fmt(c.card.pcie_gbs); }},
      {"JOULE_CARD_POWER",
       [] { return std::string("idle,core,thread in watts, e.g. 90,1.2,0.15"); },
       "card power model: idle W + W per active core + W per busy thread", parse_power,
       [](const Config& c) {
         return fmt(c.card.power_idle) + "," + fmt(c.card.power_core) + "," +
                fmt(c.card.power_thread);
       }},
      {"JOULE_CARD_STAGING_MB", [] { return std::string("an integer 1..65536"); },
       "size of the shared staging area transfers go through (one task's copies must fit)",
       [](Config& c, std::string_view v) { c.card.staging_mb = int(parse_int(v, 1, 65536)); },
       [](const Config& c) { return std::to_string(c.card.staging_mb); }},
  };
}

}  // namespace joule::offload
