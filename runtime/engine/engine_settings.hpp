// The engine's settings: workers, idling, throttling and the serial inline
// mode (keys in config_keys_engine.cpp; docs/configuration.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config.hpp"

namespace joule::engine {

// Whether the spin loops should assume more runnable workers than CPUs
// (cpu_budget.hpp): auto decides from the counts, yes and no force it.
enum class Oversubscription { automatic, yes, no };
inline constexpr std::pair<const char*, Oversubscription> kOversubscription[] = {
    {"auto", Oversubscription::automatic},
    {"yes", Oversubscription::yes},
    {"no", Oversubscription::no}};

// What a task does while its taskwait (or an undeferred task's
// dependencies) keeps it waiting (help_until.hpp): help runs any ready task
// on its stack; yield runs only its own descendants and otherwise gives its
// CPU to a spare thread, as Nanos6 does, so that a task which blocks can
// never sit on top of a wait that is over; auto helps until the program
// uses the Nanos6/ALPI blocking API, then yields.
enum class TaskwaitMode { automatic, help, yield };
inline constexpr std::pair<const char*, TaskwaitMode> kTaskwaitMode[] = {
    {"auto", TaskwaitMode::automatic},
    {"help", TaskwaitMode::help},
    {"yield", TaskwaitMode::yield}};

struct EngineSettings {
  int workers = 0;  // JOULE_WORKERS; 0: one per CPU, at most the CPU quota
  bool bind = true;
  int spin_us = 100;
  int spin_max_us = 0;  // adaptive spin's cap (adaptive_spin.hpp); 0: fixed spin_us
  // One worker and no lending: run every task inline at submit, in creation
  // order (a valid order for any dependencies), skipping dependency tracking
  // and queues altogether.
  bool serial_inline = true;
  std::int64_t throttle_tasks = 100000;  // 0: no throttle
  // The limit while a polling service is registered (task_submit.cpp,
  // TaskLifecycle::throttle); 0: throttle_tasks alone.
  std::int64_t throttle_polling_tasks = 2000;
  // JOULE_OVERSUBSCRIBED, and JOULE_CGROUP_ROOT: the root of the files the
  // CPU quota is read from (a fake tree in tests).
  Oversubscription oversubscribed = Oversubscription::automatic;
  TaskwaitMode taskwait = TaskwaitMode::automatic;  // JOULE_TASKWAIT
  std::string cgroup_root = "/";
  // JOULE_WORKER_TOPOLOGY: an hwloc synthetic machine instead of this one (tests).
  std::string topology;
  // JOULE_NUMA_STEAL_DELAY_US: with several NUMA nodes, how long a thief
  // looks only on its own node before it steals from others.
  int numa_steal_delay_us = 100;
  // JOULE_STACK_SIZE: each worker thread's stack and each stack segment a
  // deep nesting of tasks runs on (stack_segments.hpp); 0: 8 MiB.
  // OMP_STACKSIZE sets it under libjoule-omp unless JOULE_STACK_SIZE does.
  std::uint64_t stack_bytes = 0;
  bool stack_from_omp = false;
  // JOULE_DUMP: answer `joule-ctl dump PID` (dump_listener.hpp);
  // JOULE_WATCHDOG: seconds without a completion that print the dump (0: off).
  bool dump = true;
  int watchdog_s = 0;
  // JOULE_DUMP_SIGNAL: SIGUSR2 prints the dump to stderr (opt-in: the
  // signal's default action kills the process).
  bool dump_signal = false;
  // JOULE_PERTURB_SEED: the schedule perturbation's seed (perturb.hpp); 0: off.
  std::int64_t perturb_seed = 0;
  std::uint64_t stack_or_default() const { return stack_bytes ? stack_bytes : 8ull << 20; }
};

// JOULE_WORKERS, JOULE_BIND, JOULE_SPIN_US, JOULE_SPIN_MAX_US,
// JOULE_SERIAL_INLINE, JOULE_THROTTLE_TASKS, JOULE_OVERSUBSCRIBED,
// JOULE_CGROUP_ROOT, JOULE_WORKER_TOPOLOGY, JOULE_NUMA_STEAL_DELAY_US,
// JOULE_STACK_SIZE, JOULE_DUMP, JOULE_WATCHDOG, JOULE_DUMP_SIGNAL, JOULE_PERTURB_SEED,
// JOULE_TASKWAIT.
std::vector<core::ConfigKey> engine_config_keys();

}  // namespace joule::engine
