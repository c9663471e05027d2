// The control layer's observer factory: the platform layer's observer, with
// the energy controller attached to its Platform as soon as it is built.
#include "control_observer.hpp"

#include "controller.hpp"
#include "energy_config.hpp"
#include "log.hpp"
#include "platform.hpp"
#include "platform_observer.hpp"

namespace joule::control {

std::unique_ptr<core::Observer> make_energy_observer(const core::Config& cfg) {
  // Without the platform no controller is built: say why the policy asked
  // for does not run (the controller gives the same message).
  const std::string& pol = cfg.get<energy::EnergySettings>().policy;
  if (pol != "none" && pol != "auto" && !platform::platform_wanted(cfg))
    core::warn_once("energy-no-dvfs", "JOULE_ENERGY_POLICY=" + pol +
                                          " needs frequencies that can be set, and JOULE_DVFS "
                                          "gives none; running as none");
  return platform::make_platform_observer(
      cfg,
      [](platform::Platform& p,
         const core::Config& c) -> std::unique_ptr<platform::PlatformListener> {
        return std::make_unique<Controller>(p, c);
      });
}

}  // namespace joule::control
