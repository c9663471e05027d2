// Keys of observability (traces, report details). Each row sets a member of
// Config::trace.
#include "config.hpp"

namespace joule::rt {

std::vector<ConfigKey> trace_config_keys() { return {}; }

}  // namespace joule::rt
