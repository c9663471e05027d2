// What a joule trace contains: thread states, Paraver event types and the
// binary records the runtime buffers before writing a trace. Shared by the
// writers (in libjoule) and the readers (joule-trace, tests), so the numbers
// below are the file formats' contract; see docs/observability.md.
#pragma once

#include <cstdint>

namespace joule::trace_format {

// Thread states. A thread's displayed state is the innermost one it entered.
enum State : std::uint32_t {
  kIdle = 0,      // between tasks, or in runtime code
  kRunning = 1,   // in a task body
  kSleeping = 2,  // idle worker blocked (futex)
  kLent = 3,      // its CPU is lent to another process
  kBorrowed = 4,  // running on a CPU borrowed from another process
  kMpi = 5,       // inside a blocking MPI call
  kOffload = 6,   // waiting for an offloaded task or copy
  kNumStates = 7,
};

inline const char* state_name(std::uint32_t s) {
  static const char* const kNames[] = {"Idle",         "Running", "Sleeping", "Lent CPU",
                                       "Borrowed CPU", "MPI",     "Offload"};
  return s < kNumStates ? kNames[s] : "Unknown";
}

// Paraver event types. Values 0 mean "end / none" for every type.
inline constexpr std::int64_t kTypeTaskLabel = 93000001;   // label id (.pcf names it)
inline constexpr std::int64_t kTypeTaskId = 93000002;      // task id
inline constexpr std::int64_t kTypeTaskCreate = 93000003;  // label id of a created task
inline constexpr std::int64_t kTypeTaskCreateId = 93000004;
inline constexpr std::int64_t kTypeIteration = 93000010;  // iteration number
// Subsystem events (trace::Event): type = kTypeEventBase + event.
inline constexpr std::int64_t kTypeEventBase = 93000100;
// Counters (trace::emit_counter): type = kTypeCounterBase + counter id;
// Paraver values are integers, so they hold value * kCounterScale.
inline constexpr std::int64_t kTypeCounterBase = 93001000;
inline constexpr double kCounterScale = 1000.0;

// Events of subsystems and who emits them (docs/observability.md has the
// table). The numbers are part of the file formats: append, never renumber.
enum Event : std::uint32_t {
  // runtime/engine/dep_domain.cpp, on the creating thread, for every edge
  // pred -> succ really added: kEvDependencyFrom then kEvDependency, at once.
  kEvDependency = 1,  // value: successor task id
  // runtime/lending (CpuTable::apply), on the thread that made the change.
  kEvCpuLend = 2,     // value: cpu + 1
  kEvCpuBorrow = 3,   // value: cpu + 1
  kEvCpuReclaim = 4,  // value: cpu + 1
  kEvCpuReturn = 5,   // value: cpu + 1
  kEvMpiCall = 6,     // libjoule-mpi: interned call name id, 0 on leave
  // The offload layer (coherence.cpp, tasks/card_tasks.cpp): a copy's size
  // when it starts and 0 when it completes, and a launch's task id / 0.
  kEvOffloadCopyIn = 7,    // value: bytes, 0 when done
  kEvOffloadCopyOut = 8,   // value: bytes, 0 when done
  kEvOffloadLaunch = 9,    // value: task id, 0 when done
  kEvDependencyFrom = 10,  // value: predecessor task id (just before kEvDependency)
  // The platform layer's energy controller, on the thread that decided.
  kEvEnergyDecision = 11,  // value: energy::Decision::Kind (1 dvfs, 2 balance, 3 mask)
  kEvAffinityKey = 12,     // value: affinity key moved (just before kEvAffinityWorker)
  kEvAffinityWorker = 13,  // value: worker it now runs on + 1
  kEvEnergyCores = 14,     // value: cores the policy keeps (a mask decision)
  // value: energy::GuardAction (1 tripped, 2 released, 3 rebasing, 4 baseline taken)
  kEvEnergyGuard = 15,
  kNumEvents = 16,
};

inline const char* event_name(std::uint32_t e) {
  static const char* const kNames[] = {"",
                                       "Dependency edge (successor task id)",
                                       "CPU lend (cpu+1)",
                                       "CPU borrow (cpu+1)",
                                       "CPU reclaim (cpu+1)",
                                       "CPU return (cpu+1)",
                                       "MPI call",
                                       "Offload copy in (bytes)",
                                       "Offload copy out (bytes)",
                                       "Offload launch (task id)",
                                       "Dependency edge from (predecessor task id)",
                                       "Energy decision (1 dvfs, 2 balance, 3 mask)",
                                       "Affinity key moved (key)",
                                       "Affinity key moved to (worker+1)",
                                       "Energy policy cores kept",
                                       "Energy time guard (1 tripped, 2 released, 3 "
                                       "re-baseline, 4 baseline taken)"};
  return e < kNumEvents ? kNames[e] : "Unknown event";
}

// One buffered record, 24 bytes, in the thread's own time order.
enum RecordKind : std::uint16_t {
  kRecTaskStart = 1,   // a: label id, b: task id
  kRecTaskEnd = 2,     // a: label id, b: task id
  kRecTaskCreate = 3,  // a: label id, b: task id
  kRecSleepBegin = 4,
  kRecSleepEnd = 5,
  kRecIteration = 6,    // b: iteration number
  kRecStateBegin = 7,   // a: state
  kRecStateEnd = 8,     // a: state
  kRecEvent = 9,        // a: event, b: value
  kRecCounter = 10,     // a: counter id, b: bits of the double value; cpu
  kRecEventNamed = 11,  // a: event, b: interned name id (0: leave)
};

inline constexpr std::uint16_t kNoCpu = 0xffff;

struct Record {
  std::uint64_t t;     // CLOCK_MONOTONIC ns
  std::uint16_t kind;  // RecordKind
  std::uint16_t cpu;   // counters: the CPU they describe, or kNoCpu
  std::uint32_t a;
  std::uint64_t b;
};
static_assert(sizeof(Record) == 24);

}  // namespace joule::trace_format
