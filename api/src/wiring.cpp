// The one place that knows every layer: it adds each layer's configuration
// keys to the table, registers the optional subsystems' observers (the
// platform layer before tracing, which must see the DVFS emulation's
// stretch) and installs the lending layer's CPU manager. Runs when libjoule
// is loaded, before any joule call can start the runtime.
#include "config.hpp"
#include "cpu_manager.hpp"
#include "device.hpp"
#include "energy_config.hpp"
#include "lewi_cpu_manager.hpp"
#include "observer.hpp"
#include "platform_observer.hpp"
#include "policy_registry.hpp"
#include "runtime.hpp"
#include "trace_observer.hpp"

namespace joule::rt {

std::vector<ConfigKey> omp_config_keys();                 // config_keys_omp.cpp
std::unique_ptr<Observer> start_card(const Config& cfg);  // offload_api.cpp

namespace {

struct Wiring {
  Wiring() {
    add_config_section(engine_config_keys);
    add_config_section(sched::scheduler_config_keys);
    add_config_section(plat::platform_config_keys);
    add_config_section(energy::energy_config_keys);
    add_config_section(trace_config_keys);
    add_config_section(lewi_config_keys);
    add_config_section(omp_config_keys);
    add_config_section(offload::card_config_keys);
    register_observer_factory(start_card);  // first: forks the card before any thread starts
    register_observer_factory(plat::make_platform_observer);
    register_observer_factory(make_trace_observer);
    set_lending_factory(make_lewi_cpu_manager);
  }
};

const Wiring g_wiring;

}  // namespace
}  // namespace joule::rt
