// The text of a Paraver .pcf for joule's states and event types, given the
// names behind the label, MPI-call and counter ids. Header-only so that the
// runtime (one process) and joule-trace merge (many) write the same file.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "trace_events.hpp"

namespace joule::trace_format {

inline std::string pcf_text(const std::vector<std::string>& labels,
                            const std::vector<std::string>& mpi_names,
                            const std::vector<std::string>& counters) {
  static const char* const kColors[kNumStates] = {"{117,195,255}", "{0,0,255}", "{190,190,190}",
                                                  "{255,160,0}",   "{0,160,0}", "{200,0,0}",
                                                  "{170,0,170}"};
  std::ostringstream os;
  auto type = [&](std::int64_t t, const std::string& name, const std::vector<std::string>* values) {
    os << "EVENT_TYPE\n0    " << t << "    " << name << "\n";
    if (values) {
      os << "VALUES\n";
      for (std::size_t v = 0; v < values->size(); ++v) os << v << "      " << (*values)[v] << "\n";
    }
    os << "\n\n";
  };
  os << "DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n"
        "LOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\n"
        "NUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\nDEFAULT_SEMANTIC\n\n"
        "THREAD_FUNC          State As Is\n\n\nSTATES\n";
  for (std::uint32_t i = 0; i < kNumStates; ++i) os << i << "    " << state_name(i) << "\n";
  os << "\n\nSTATES_COLOR\n";
  for (std::uint32_t i = 0; i < kNumStates; ++i) os << i << "    " << kColors[i] << "\n";
  os << "\n\n";
  type(kTypeTaskLabel, "Task label", &labels);
  type(kTypeTaskId, "Task id", nullptr);
  type(kTypeTaskCreate, "Task created (label)", &labels);
  type(kTypeTaskCreateId, "Task created (id)", nullptr);
  type(kTypeIteration, "Iteration", nullptr);
  for (std::uint32_t e = 1; e < kNumEvents; ++e)
    type(kTypeEventBase + e, event_name(e), e == kEvMpiCall ? &mpi_names : nullptr);
  for (std::size_t c = 0; c < counters.size(); ++c)
    type(kTypeCounterBase + std::int64_t(c), counters[c] + " (x1000)", nullptr);
  return os.str();
}

}  // namespace joule::trace_format
