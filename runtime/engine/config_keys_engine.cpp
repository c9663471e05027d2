// Keys of the engine: workers and their idling (spin and its cap), task
// throttling, the serial inline mode, and what bounds the worker count (the
// cgroup CPU quota, oversubscription). docs/configuration.md explains them.
#include <stdexcept>

#include "engine_settings.hpp"
#include "key_table.hpp"
#include "text.hpp"

namespace joule::engine {

std::vector<core::ConfigKey> engine_config_keys() {
  using S = EngineSettings;
  core::KeyTable<S> t;
  t.integer("JOULE_WORKERS", &S::workers, 0, 4096,
            "number of workers; more than CPUs shares CPUs round-robin (a testing mode)",
            "0: one per CPU, at most the cgroup CPU quota rounded up");
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
  t.integer("JOULE_THROTTLE_POLLING_TASKS", &S::throttle_polling_tasks, 0, 1000000000,
            "the same limit while a polling service is registered (a task-aware layer such as "
            "TAMPI waits for outside events)",
            "0: JOULE_THROTTLE_TASKS alone; never above it");
  t.choice("JOULE_OVERSUBSCRIBED", &S::oversubscribed,
           core::Choices<Oversubscription>(kOversubscription),
           "whether waiting workers yield their CPU early; auto = when workers outnumber the "
           "CPUs or the CPU quota");
  t.choice("JOULE_TASKWAIT", &S::taskwait, core::Choices<TaskwaitMode>(kTaskwaitMode),
           "what a task waiting for its children or an undeferred task's dependencies does: "
           "help = run any ready task on its stack (fastest for fine-grained tasks, but a task "
           "run there that blocks holds the wait until it resumes); yield = run only its own "
           "descendants and otherwise give its CPU to a spare thread, as Nanos6 (a blocked task "
           "never holds a wait); auto = help until the program uses the Nanos6 or ALPI blocking "
           "API or a polling service, then yield");
  t.custom(
      "JOULE_WORKER_TOPOLOGY", "text",
      "an hwloc synthetic description, e.g. \"pack:2 numa:2 core:8 pu:2\", at most 65536 PUs "
      "in all (default: this machine)",
      "run the workers as if on this machine: they take its CPUs and NUMA nodes (unbound; "
      "memory records the node it was meant for); for tests and what-if runs. "
      "JOULE_TOPOLOGY is the energy model's machine",
      [](S& s, std::string_view v) {
        if (core::synthetic_pu_count(v, core::kMaxSyntheticPus) > core::kMaxSyntheticPus)
          throw std::invalid_argument("more than " + std::to_string(core::kMaxSyntheticPus) +
                                      " PUs (the product of the level counts)");
        s.topology = std::string(v);
      },
      [](const S& s) { return s.topology; });
  t.flag("JOULE_DUMP", &S::dump,
         "answer `joule-ctl dump PID` with what each worker and blocked task is doing (a socket "
         "in the abstract namespace, readable by the process's user and root)");
  t.integer("JOULE_WATCHDOG", &S::watchdog_s, 0, 86400,
            "when tasks are in flight and none completed for this long, print the state dump "
            "to stderr (once per stall)",
            "seconds; 0: off");
  t.flag("JOULE_DUMP_SIGNAL", &S::dump_signal,
         "SIGUSR2 prints the state dump to stderr (`kill -USR2 PID`); not when the program "
         "handles SIGUSR2 itself");
  t.integer("JOULE_PERTURB_SEED", &S::perturb_seed, 0, std::int64_t(1) << 62,
            "testing: seed of the schedule perturbation (a random yield or short sleep at every "
            "synchronization point); only the test variant of libjoule (-DJOULE_PERTURB=ON, "
            "<build>/perturb) has the points, any other refuses to start with a seed",
            "0: off");
  t.integer("JOULE_NUMA_STEAL_DELAY_US", &S::numa_steal_delay_us, 0, 1000000,
            "with workers on several NUMA nodes, once the program placed data (joule_alloc): how "
            "long an idle worker looks for work only on its own node before it steals from other "
            "nodes (tasks queued there for their data stay for that node's workers meanwhile)",
            "microseconds; 0: steal anywhere at once");
  t.custom(
      "JOULE_STACK_SIZE", "text", "a size such as 512K, 16M or 1G, 64K..1G (no suffix: KiB)",
      "stack of each worker thread, and of each segment tasks nested too deep for one stack "
      "run on (default 8M; OMP_STACKSIZE sets it under libjoule-omp)",
      [](S& s, std::string_view v) {
        const std::uint64_t bytes = core::parse_size(v, 1024);
        if (bytes < (64u << 10) || bytes > (1u << 30))
          throw std::invalid_argument("out of range (64K..1G)");
        s.stack_bytes = bytes, s.stack_from_omp = false;
      },
      [](const S& s) { return std::to_string(s.stack_or_default()) + "B"; });
  t.custom(
      "JOULE_CGROUP_ROOT", "path", "a directory path (default /)",
      "root under which /proc/self/cgroup, /proc/self/mountinfo and the cgroup files they name "
      "are read for the CPU quota",
      [](S& s, std::string_view v) {
        if (core::trim(v).empty()) throw std::invalid_argument("empty path");
        s.cgroup_root = std::string(core::trim(v));
      },
      [](const S& s) { return s.cgroup_root; });
  return t.keys();
}

}  // namespace joule::engine
