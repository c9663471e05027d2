// Placeholder until tracing lands: tracing is off.
#include "observer.hpp"

namespace joule::rt {

std::unique_ptr<Observer> make_trace_observer(const Config&) { return nullptr; }

}  // namespace joule::rt
