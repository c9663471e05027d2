// Placeholder until the platform layer lands: no backend is active.
#include "observer.hpp"

namespace joule::rt {

std::unique_ptr<Observer> make_platform_observer(const Config&) { return nullptr; }

}  // namespace joule::rt
