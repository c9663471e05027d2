// The event API for subsystems that the runtime's Observer hooks do not see:
// CPU lending, MPI interposition, offload, DVFS, meters and sensors. Every
// call is one relaxed load and a branch when tracing is off (JOULE_TRACE=none
// and JOULE_REPORT=0); when on, the event goes to the calling thread's own
// buffer, without locks. Call from any thread while the runtime runs; a
// subsystem's own threads must stop emitting before its on_runtime_stop
// returns (the trace is written in the trace observer's on_runtime_stop,
// which runs after the platform's).
//
// The front end lives here, in the core, so that every layer can emit
// without depending on the trace subsystem; runtime/trace installs the
// back end (a Sink) while a trace or report is being made.
#pragma once

#include <atomic>
#include <cstdint>

#include "trace_events.hpp"

namespace joule::core::trace {

using State = trace_format::State;
using Event = trace_format::Event;

// The back end: runtime/trace's trace session.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void event(Event e, std::uint64_t value) noexcept = 0;
  virtual void named(Event e, const char* name) noexcept = 0;
  virtual void counter(const char* name, double value, int cpu) noexcept = 0;
  virtual void state(State s, bool begin) noexcept = 0;
  virtual void set_rank(int rank) noexcept = 0;
};

namespace detail {
inline std::atomic<bool> g_on{false};
inline std::atomic<Sink*> g_sink{nullptr};
inline Sink* sink() noexcept { return g_sink.load(std::memory_order_acquire); }
}  // namespace detail

inline bool enabled() noexcept { return detail::g_on.load(std::memory_order_relaxed); }

// The back end starts (sink) or stops (nullptr) receiving events.
inline void install(Sink* sink) noexcept {
  if (!sink) detail::g_on.store(false, std::memory_order_release);
  detail::g_sink.store(sink, std::memory_order_release);
  if (sink) detail::g_on.store(true, std::memory_order_release);
}

// A point event, e.g. emit_event(Event::kEvCpuLend, cpu + 1) or
// emit_event(Event::kEvDependency, successor_id). Lend / borrow / reclaim /
// return events are also counted for the report.
inline void emit_event(Event e, std::uint64_t value) noexcept {
  if (enabled())
    if (Sink* s = detail::sink()) s->event(e, value);
}

// An event whose value is a name, e.g. emit_named(Event::kEvMpiCall,
// "MPI_Allreduce") on entry and emit_named(Event::kEvMpiCall, nullptr) on
// leave. `name` must outlive the runtime (a string literal).
inline void emit_named(Event e, const char* name) noexcept {
  if (enabled())
    if (Sink* s = detail::sink()) s->named(e, name);
}

// A sample of a counter track. `name` is a string literal naming the
// quantity and its unit; the conventional ones, which joule-trace draws:
//   "frequency_mhz" (cpu = the core, or -1 for the package / all cores)
//   "power_w", "temperature_c", "energy_j" (cpu = -1, or a core)
// Paraver stores value * 1000 as an integer (MHz as kHz, W as mW).
inline void emit_counter(const char* name, double value, int cpu = -1) noexcept {
  if (enabled())
    if (Sink* s = detail::sink()) s->counter(name, value, cpu);
}

// The calling thread enters / leaves a state (lent CPU, MPI call, offload
// wait). States nest; the innermost is the one shown.
inline void begin_state(State st) noexcept {
  if (enabled())
    if (Sink* s = detail::sink()) s->state(st, true);
}
inline void end_state(State st) noexcept {
  if (enabled())
    if (Sink* s = detail::sink()) s->state(st, false);
}

// The MPI rank of this process for the trace's file name and the merged
// trace (libjoule-mpi calls it after MPI_Init). Before that, the rank comes
// from JOULE_TRACE_RANK or the launcher's environment.
inline void set_rank(int rank) noexcept {
  if (Sink* s = detail::sink()) s->set_rank(rank);
}

}  // namespace joule::core::trace
