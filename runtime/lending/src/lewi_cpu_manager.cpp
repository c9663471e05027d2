// Placeholder until LeWI lands: lending is not available yet.
#include "cpu_manager.hpp"

namespace joule::rt {

std::unique_ptr<CpuManager> make_lewi_cpu_manager(const Config&) { return nullptr; }

}  // namespace joule::rt
