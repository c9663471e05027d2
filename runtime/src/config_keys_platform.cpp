// Keys of the platform layer (DVFS, meters, thermal, counters). Each row
// sets a member of Config::platform.
#include "config.hpp"

namespace joule::rt {

std::vector<ConfigKey> platform_config_keys() { return {}; }

}  // namespace joule::rt
