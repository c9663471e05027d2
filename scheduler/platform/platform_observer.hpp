// What the platform layer offers the layer that wires the runtime (api/):
// its observer (DVFS emulation, meters, thermal, counters) and its keys.
#pragma once

#include <memory>
#include <vector>

#include "config.hpp"
#include "observer.hpp"

namespace joule::platform {

// Repairs what killed processes left (state files), then returns the
// platform observer, or nullptr when nothing asks for the platform layer.
std::unique_ptr<core::Observer> make_platform_observer(const core::Config& cfg);
// JOULE_DVFS, JOULE_PSTATES, JOULE_METER, JOULE_THERMAL, ... (docs/platform.md).
std::vector<core::ConfigKey> platform_config_keys();

}  // namespace joule::platform
