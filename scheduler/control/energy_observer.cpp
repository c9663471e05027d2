// The control layer's observer factory: the platform layer's observer, with
// the energy controller attached to its Platform as soon as it is built.
#include "energy_observer.hpp"

#include "energy_controller.hpp"
#include "platform.hpp"
#include "platform_observer.hpp"

namespace joule::control {

std::unique_ptr<core::Observer> make_energy_observer(const core::Config& cfg) {
  return platform::make_platform_observer(
      cfg,
      [](platform::Platform& p,
         const core::Config& c) -> std::unique_ptr<platform::PlatformListener> {
        return std::make_unique<EnergyController>(p, c);
      });
}

}  // namespace joule::control
