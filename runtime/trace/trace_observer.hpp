// What the trace subsystem offers the layer that wires the runtime (api/):
// its observer, which is also the back end of trace_api.hpp, and its keys.
#pragma once

#include <memory>
#include <vector>

#include "config.hpp"
#include "observer.hpp"
#include "trace_settings.hpp"

namespace joule::trace {

using namespace joule::core;

// nullptr unless JOULE_TRACE or JOULE_REPORT asks for it.
std::unique_ptr<Observer> make_trace_observer(const Config& cfg);

}  // namespace joule::trace
