// What the platform layer offers the layer that wires the runtime (api/):
// its observer (DVFS emulation, meters, thermal, counters) and its keys.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "config.hpp"
#include "observer.hpp"

namespace joule::platform {

class Platform;
class PlatformListener;

// Builds the layer above's listener for a new Platform (the energy
// controller: scheduler/control, make_energy_observer).
using ListenerFactory =
    std::function<std::unique_ptr<PlatformListener>(Platform&, const core::Config&)>;

// Repairs what killed processes left (state files), then returns the
// platform observer, or nullptr when nothing asks for the platform layer.
// `listener`, if given, is attached to the Platform as soon as it is built.
std::unique_ptr<core::Observer> make_platform_observer(const core::Config& cfg,
                                                       const ListenerFactory& listener = {});
// JOULE_DVFS, JOULE_PSTATES, JOULE_METER, JOULE_THERMAL, ... (docs/platform.md).
std::vector<core::ConfigKey> platform_config_keys();

}  // namespace joule::platform
