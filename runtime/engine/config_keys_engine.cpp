// Keys of the engine: workers and their idling (spin and its cap), task
// throttling and the serial inline mode. docs/configuration.md explains them.
#include "engine_settings.hpp"
#include "key_table.hpp"

namespace joule::engine {

std::vector<core::ConfigKey> engine_config_keys() {
  using S = EngineSettings;
  core::KeyTable<S> t;
  t.integer("JOULE_WORKERS", &S::workers, 0, 4096,
            "number of workers; more than CPUs shares CPUs round-robin (a testing mode)",
            "0: one per CPU");
  t.flag("JOULE_BIND", &S::bind, "pin each worker to its CPU with hwloc");
  t.integer("JOULE_SPIN_US", &S::spin_us, 0, 1000000,
            "how long an idle worker spins before it sleeps", "microseconds");
  t.integer("JOULE_SPIN_MAX_US", &S::spin_max_us, 0, 1000000,
            "longest spin an idle worker learns from short idle gaps (lending off)",
            "microseconds; 0: always JOULE_SPIN_US");
  t.flag("JOULE_SERIAL_INLINE", &S::serial_inline,
         "with one worker and lending off, tasks run inline in creation order (no dependency "
         "tracking)");
  t.integer("JOULE_THROTTLE_TASKS", &S::throttle_tasks, 0, 1000000000,
            "tasks in flight above which creating threads run ready tasks instead", "0: off");
  return t.keys();
}

}  // namespace joule::engine
