// The engine's settings: workers, idling, throttling and the serial inline
// mode (keys in config_keys_engine.cpp; docs/configuration.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"

namespace joule::engine {

struct EngineSettings {
  int workers = 0;  // JOULE_WORKERS; 0: one per CPU
  bool bind = true;
  int spin_us = 100;
  int spin_max_us = 0;  // adaptive spin's cap (adaptive_spin.hpp); 0: fixed spin_us
  // One worker and no lending: run every task inline at submit, in creation
  // order (a valid order for any dependencies), skipping dependency tracking
  // and queues altogether.
  bool serial_inline = true;
  std::int64_t throttle_tasks = 100000;  // 0: no throttle
};

// JOULE_WORKERS, JOULE_BIND, JOULE_SPIN_US, JOULE_SPIN_MAX_US,
// JOULE_SERIAL_INLINE, JOULE_THROTTLE_TASKS.
std::vector<core::ConfigKey> engine_config_keys();

}  // namespace joule::engine
