// The POP efficiency metrics over a set of threads (or processes) that ran
// for the same elapsed time. Header-only: the runtime's report and the
// joule-trace tool compute them the same way. Definitions (POP CoE, and the
// DLB thesis, Chapter 1 and §6.1.2; docs/references.md):
//   load balance             = avg(useful) / max(useful)
//   communication efficiency = max(useful) / elapsed
//   parallel efficiency      = sum(useful) / (n * elapsed)
//                            = load balance * communication efficiency
// "useful" is time in task bodies (outermost tasks only, so nested tasks
// are not counted twice); "communication" covers everything else that keeps
// the busiest thread from computing: runtime overhead, waiting for
// dependencies, serial code outside tasks and (with MPI) message passing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace joule::trace_format {

struct PopMetrics {
  int units = 0;  // threads (or processes) measured
  double elapsed_s = 0;
  double useful_s = 0;  // sum over units
  double avg_useful_s = 0;
  double max_useful_s = 0;
  double load_balance = 0;
  double comm_efficiency = 0;
  double parallel_efficiency = 0;
};

inline PopMetrics compute_pop(const std::vector<std::uint64_t>& useful_ns,
                              std::uint64_t elapsed_ns) {
  PopMetrics m;
  m.units = int(useful_ns.size());
  m.elapsed_s = double(elapsed_ns) * 1e-9;
  if (useful_ns.empty()) return m;
  std::uint64_t sum = 0, max = 0;
  for (std::uint64_t u : useful_ns) {
    sum += u;
    max = std::max(max, u);
  }
  m.useful_s = double(sum) * 1e-9;
  m.avg_useful_s = m.useful_s / m.units;
  m.max_useful_s = double(max) * 1e-9;
  m.load_balance = max ? m.avg_useful_s / m.max_useful_s : 1.0;
  if (elapsed_ns) {
    m.comm_efficiency = m.max_useful_s / m.elapsed_s;
    m.parallel_efficiency = m.useful_s / (m.units * m.elapsed_s);
  }
  return m;
}

}  // namespace joule::trace_format
