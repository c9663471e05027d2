// What the lending layer offers the layer that wires the runtime (api/):
// its CpuManager (LeWI and DROM over the node's CPU table) and its keys.
#pragma once

#include <memory>
#include <vector>

#include "config.hpp"
#include "cpu_manager.hpp"
#include "lending_settings.hpp"

namespace joule::lending {

using namespace joule::core;

// nullptr with JOULE_LENDING=off; throws joule::error on a bad table name.
std::unique_ptr<CpuManager> make_lending_cpu_manager(const Config& cfg);

}  // namespace joule::lending
