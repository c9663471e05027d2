// What the control layer offers the layer that wires the runtime (api/):
// the platform observer with the energy controller attached.
#pragma once

#include <memory>

#include "config.hpp"
#include "observer.hpp"

namespace joule::control {

// platform::make_platform_observer, with a control::Controller listening to
// the Platform it builds (nullptr when nothing asks for the platform layer).
std::unique_ptr<core::Observer> make_energy_observer(const core::Config& cfg);

}  // namespace joule::control
