// The one place that knows every layer: it adds each layer's configuration
// keys to the table, registers the optional subsystems' observers (the
// platform layer before tracing, which must see the DVFS emulation's
// stretch), installs the lending layer's CPU manager and the offload
// layers' task hook. Runs when libjoule
// is loaded, before any joule call can start the runtime.
#include "card_tasks.hpp"
#include "config.hpp"
#include "control_observer.hpp"
#include "cpu_manager.hpp"
#include "cuda_settings.hpp"
#include "device.hpp"
#include "energy_config.hpp"
#include "gpu_devices.hpp"
#include "lewi_cpu_manager.hpp"
#include "observer.hpp"
#include "omp_settings.hpp"
#include "platform_observer.hpp"
#include "policy_registry.hpp"
#include "runtime.hpp"
#include "task_hooks.hpp"
#include "trace_observer.hpp"

namespace joule::api {

using namespace joule::core;
using namespace joule::engine;

namespace {

struct Wiring {
  Wiring() {
    add_config_section(engine_config_keys, "engine");
    add_config_section(queues::queues_config_keys, "queues");
    add_config_section(platform::platform_config_keys, "platform");
    add_config_section(energy::energy_config_keys, "energy");
    add_config_section(trace::trace_config_keys, "trace");
    add_config_section(lending::lewi_config_keys, "lending");
    add_config_section(omp_config_keys, "openmp");
    add_config_section(offload::card_config_keys, "offload");
    add_config_section(cuda::cuda_config_keys, "cuda");
    // First: forks the card before any thread starts.
    register_observer_factory(card_tasks::start_card);
    register_observer_factory(card_tasks::start_gpus);  // JOULE_CUDA=required: fails the start
    register_observer_factory(control::make_energy_observer);
    register_observer_factory(trace::make_trace_observer);
    set_lending_factory(lending::make_lewi_cpu_manager);
    // Host tasks naming data a device holds get it back before their body.
    set_task_hook(card_tasks::host_task_hook());
  }
};

const Wiring g_wiring;

}  // namespace
}  // namespace joule::api
