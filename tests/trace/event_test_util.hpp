// Reading back the subsystem events of a trace, in either format, with the
// tests' own small readers (not joule-trace's): counts per trace::Event,
// dependency edges, task creations, counter samples and MPI calls.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "trace_test_util.hpp"

namespace trace_test {

struct Events {
  std::map<std::uint32_t, int> by_event;  // point events (MPI: entries only)
  int iterations = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> edges;  // (pred, succ)
  std::map<std::uint64_t, double> created;                     // task id -> creation time
  std::map<std::string, std::vector<double>> counters;         // track -> values in time order
  std::vector<std::string> mpi_calls;                          // names, in order, per thread
  int mpi_leaves = 0;
  int mpi_states = 0;  // Paraver state records / Chrome slices of the MPI state

  int count(std::uint32_t event) const {
    auto it = by_event.find(event);
    return it == by_event.end() ? 0 : it->second;
  }
};

// The one trace in dir: its .prv (with the .pcf) or its .json.
Events load_events(const TempDir& dir);
Events load_prv_events(const std::string& prv, const std::string& pcf);
Events load_json_events(const std::string& json);

}  // namespace trace_test
