// The event API for subsystems that the runtime's Observer hooks do not see:
// CPU lending, MPI interposition, offload, DVFS, meters and sensors. Every
// call is one relaxed load and a branch when tracing is off (JOULE_TRACE=none
// and JOULE_REPORT=0); when on, the event goes to the calling thread's own
// buffer, without locks. Call from any thread while the runtime runs; a
// subsystem's own threads must stop emitting before its on_runtime_stop
// returns (the trace is written in the trace observer's on_runtime_stop,
// which runs after the platform's).
//
// Link: include "trace_api.hpp" (target joule::instrument's include path).
#pragma once

#include <atomic>
#include <cstdint>

#include "trace_events.hpp"

namespace joule::rt::trace {

using State = trace_format::State;
using Event = trace_format::Event;

namespace detail {
inline std::atomic<bool> g_on{false};
void emit_event(Event e, std::uint64_t value) noexcept;
void emit_named(Event e, const char* name) noexcept;
void emit_counter(const char* name, double value, int cpu) noexcept;
void begin_state(State s) noexcept;
void end_state(State s) noexcept;
}  // namespace detail

inline bool enabled() noexcept { return detail::g_on.load(std::memory_order_relaxed); }

// A point event, e.g. emit_event(Event::kEvCpuLend, cpu + 1) or
// emit_event(Event::kEvDependency, successor_id). Lend / borrow / reclaim /
// return events are also counted for the report.
inline void emit_event(Event e, std::uint64_t value) noexcept {
  if (enabled()) detail::emit_event(e, value);
}

// An event whose value is a name, e.g. emit_named(Event::kEvMpiCall,
// "MPI_Allreduce") on entry and emit_named(Event::kEvMpiCall, nullptr) on
// leave. `name` must outlive the runtime (a string literal).
inline void emit_named(Event e, const char* name) noexcept {
  if (enabled()) detail::emit_named(e, name);
}

// A sample of a counter track. `name` is a string literal naming the
// quantity and its unit; the conventional ones, which joule-trace draws:
//   "frequency_mhz" (cpu = the core, or -1 for the package / all cores)
//   "power_w", "temperature_c", "energy_j" (cpu = -1, or a core)
// Paraver stores value * 1000 as an integer (MHz as kHz, W as mW).
inline void emit_counter(const char* name, double value, int cpu = -1) noexcept {
  if (enabled()) detail::emit_counter(name, value, cpu);
}

// The calling thread enters / leaves a state (lent CPU, MPI call, offload
// wait). States nest; the innermost is the one shown.
inline void begin_state(State s) noexcept {
  if (enabled()) detail::begin_state(s);
}
inline void end_state(State s) noexcept {
  if (enabled()) detail::end_state(s);
}

// The MPI rank of this process for the trace's file name and the merged
// trace (libjoule-mpi calls it after MPI_Init). Before that, the rank comes
// from JOULE_TRACE_RANK or the launcher's environment.
void set_rank(int rank) noexcept;

}  // namespace joule::rt::trace
