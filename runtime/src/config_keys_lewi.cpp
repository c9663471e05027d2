// Keys of CPU lending (LeWI) and DROM. Each row sets a member of Config::lewi.
#include <stdexcept>

#include "config.hpp"

namespace joule::rt {

std::vector<ConfigKey> lewi_config_keys() {
  return {
      {"JOULE_LEWI", [] { return std::string("off, local, node"); },
       "lend idle CPUs: off; local (among this process's workers); node (between processes)",
       [](Config& c, std::string_view v) {
         if (v != "off" && v != "local" && v != "node") throw std::invalid_argument("unknown mode");
         c.lewi.mode = std::string(v);
       },
       [](const Config& c) { return c.lewi.mode; }},
  };
}

}  // namespace joule::rt
