// Lent and borrowed periods from a trace's CPU-lending events. The runtime
// records only the transitions (lend, borrow, reclaim, return: whoever made
// them, on its own thread); which worker's row a period belongs to is
// decided here, for every reader of the model (svg, html, stats).
#include <algorithm>
#include <map>
#include <tuple>

#include "trace_events.hpp"
#include "trace_model.hpp"

namespace joule::trace_format {
namespace {

using Interval = std::pair<std::uint64_t, std::uint64_t>;

// The row of the process's own worker on `cpu` (guest false) or of the
// worker it started on that borrowed CPU (guest true); -1 if there is none.
int row_on(const TraceModel& m, int process, int cpu, bool guest) {
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    const Row& r = m.rows[i];
    if (r.process == process && r.cpu == cpu && r.worker >= 0 && r.guest == guest) return int(i);
  }
  return -1;
}

// Removes the parts of r's `state` slices that fall in `cut` (sorted).
void carve(Row& r, std::uint32_t state, const std::vector<Interval>& cut) {
  std::vector<Slice> out;
  for (const Slice& s : r.states) {
    if (s.what != state) {
      out.push_back(s);
      continue;
    }
    std::uint64_t from = s.t0;
    for (const auto& [a, b] : cut) {
      if (b <= from || a >= s.t1) continue;
      if (a > from) out.push_back({from, a, state, 0});
      from = std::max(from, b);
    }
    if (from < s.t1) out.push_back({from, s.t1, state, 0});
  }
  r.states = std::move(out);
}

// (row, state) -> periods, pairing each lend with the next reclaim and each
// borrow with the next return of the same CPU by the same process.
std::map<std::pair<int, std::uint32_t>, std::vector<Interval>> pair_up(const TraceModel& m) {
  std::map<std::pair<int, std::uint32_t>, std::vector<Interval>> periods;
  std::map<std::tuple<int, int, bool>, std::uint64_t> open;  // (process, cpu, borrowed) -> since
  auto close = [&](const std::tuple<int, int, bool>& key, std::uint64_t t) {
    auto it = open.find(key);
    if (it == open.end()) return;
    const auto [process, cpu, borrowed] = key;
    const int ri = row_on(m, process, cpu, borrowed);
    if (ri >= 0 && t > it->second)
      periods[{ri, borrowed ? kBorrowed : kLent}].push_back({it->second, t});
    open.erase(it);
  };
  for (const LendingEvent& e : m.lending) {
    const bool borrowed = e.event == kEvCpuBorrow || e.event == kEvCpuReturn;
    const auto key = std::make_tuple(e.process, e.cpu, borrowed);
    if (e.event == kEvCpuLend || e.event == kEvCpuBorrow)
      open.try_emplace(key, e.t);
    else
      close(key, e.t);
  }
  std::vector<std::tuple<int, int, bool>> still;  // lent or borrowed until the process stopped
  for (const auto& [key, since] : open) still.push_back(key);
  for (const auto& key : still) {
    const int p = std::get<0>(key);
    if (p >= 0 && std::size_t(p) < m.processes.size()) close(key, m.processes[std::size_t(p)].t1);
  }
  return periods;
}

}  // namespace

void add_lending_periods(TraceModel& m) {
  if (m.lending.empty()) return;
  std::stable_sort(m.lending.begin(), m.lending.end(),
                   [](const LendingEvent& a, const LendingEvent& b) { return a.t < b.t; });
  for (auto& [key, periods] : pair_up(m)) {
    Row& r = m.rows[std::size_t(key.first)];
    // A parked worker sleeps while its CPU is lent: the lent state is what
    // it shows. A guest row's start-to-stop Borrowed state gives way to the
    // exact periods between borrow and return.
    if (key.second == kLent)
      carve(r, kSleeping, periods);
    else
      std::erase_if(r.states, [](const Slice& s) { return s.what == kBorrowed; });
    for (const auto& [a, b] : periods) r.states.push_back({a, b, key.second, 0});
  }
  m.lending.clear();  // turned into states; a second finish() must not add them again
}

}  // namespace joule::trace_format
