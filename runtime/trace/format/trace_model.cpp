#include "trace_model.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>

namespace joule::trace_format {

std::uint32_t TraceModel::label_index(const std::string& name) {
  for (std::size_t i = 1; i < labels.size(); ++i)  // few labels: a scan is fine
    if (labels[i] == name) return std::uint32_t(i);
  labels.push_back(name);
  return std::uint32_t(labels.size() - 1);
}

void TraceModel::finish() {
  add_lending_periods(*this);
  auto by_start = [](const Slice& a, const Slice& b) {
    return a.t0 != b.t0 ? a.t0 < b.t0 : a.t1 > b.t1;
  };
  for (Row& r : rows) {
    std::sort(r.tasks.begin(), r.tasks.end(), by_start);
    std::sort(r.states.begin(), r.states.end(), by_start);
    std::vector<std::uint64_t> open;  // ends of enclosing tasks
    for (Slice& s : r.tasks) {
      while (!open.empty() && open.back() <= s.t0) open.pop_back();
      s.depth = std::uint32_t(open.size());
      open.push_back(s.t1);
    }
  }
  for (Counter& c : counters)
    std::stable_sort(c.samples.begin(), c.samples.end(),
                     [](auto& a, auto& b) { return a.first < b.first; });
  std::sort(iterations.begin(), iterations.end(), [](auto& a, auto& b) { return a.t < b.t; });
  bool any = false;
  for (const Process& p : processes) {
    if (p.t1 <= p.t0) continue;
    t0 = any ? std::min(t0, p.t0) : p.t0;
    t1 = any ? std::max(t1, p.t1) : p.t1;
    any = true;
  }
  for (const Row& r : rows)
    for (const auto* v : {&r.tasks, &r.states})
      for (const Slice& s : *v) {
        t0 = any ? std::min(t0, s.t0) : s.t0;
        t1 = any ? std::max(t1, s.t1) : s.t1;
        any = true;
      }
}

std::pair<std::string, int> split_cpu_suffix(const std::string& track) {
  const auto at = track.rfind(" cpu ");
  if (at == std::string::npos || at + 5 >= track.size()) return {track, -1};
  for (std::size_t i = at + 5; i < track.size(); ++i)
    if (track[i] < '0' || track[i] > '9') return {track, -1};
  return {track.substr(0, at), std::stoi(track.substr(at + 5))};
}

TraceSummary summarize(const TraceModel& m) {
  TraceSummary s;
  std::vector<std::vector<std::uint64_t>> useful(m.processes.size());
  std::vector<std::uint64_t> all, per_process(m.processes.size(), 0);
  std::vector<LabelStats> labels(m.labels.size());
  for (const Row& r : m.rows) {
    std::uint64_t u = 0;
    for (const Slice& sl : r.tasks) {
      const std::uint64_t d = sl.t1 - sl.t0;
      if (sl.depth == 0) u += d;
      if (sl.what >= labels.size()) labels.resize(sl.what + 1);
      LabelStats& l = labels[sl.what];
      ++l.count;
      l.total_ns += d;
      l.max_ns = std::max(l.max_ns, d);
    }
    if (r.worker < 0 || r.guest || std::size_t(r.process) >= useful.size()) continue;
    useful[std::size_t(r.process)].push_back(u);
    all.push_back(u);
    per_process[std::size_t(r.process)] += u;
  }
  for (std::size_t p = 0; p < m.processes.size(); ++p) {
    const Process& pr = m.processes[p];
    s.processes.push_back({pr.rank, pr.pid, compute_pop(useful[p], pr.t1 - pr.t0)});
  }
  s.job = compute_pop(all, m.t1 - m.t0);
  s.mpi_lb = compute_pop(per_process, m.t1 - m.t0);
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i].count)
      s.labels.push_back(
          {i < m.labels.size() ? m.labels[i] : "label " + std::to_string(i), labels[i]});
  std::stable_sort(s.labels.begin(), s.labels.end(), [](const LabelRow& a, const LabelRow& b) {
    return a.stats.total_ns > b.stats.total_ns;
  });
  return s;
}

void print_summary(const TraceSummary& s, std::ostream& os) {
  char line[256];
  os << "process  rank      pid workers  elapsed_s   useful_s  par_eff  load_bal  comm_eff\n";
  for (std::size_t i = 0; i < s.processes.size(); ++i) {
    const auto& p = s.processes[i];
    std::snprintf(line, sizeof line, "%7zu %5d %8ld %7d %10.6f %10.6f %8.3f %9.3f %9.3f\n", i,
                  p.rank, p.pid, p.pop.units, p.pop.elapsed_s, p.pop.useful_s,
                  p.pop.parallel_efficiency, p.pop.load_balance, p.pop.comm_efficiency);
    os << line;
  }
  if (s.processes.size() > 1) {
    std::snprintf(line, sizeof line,
                  "job (all workers of all processes): %d workers, elapsed %.6f s, "
                  "parallel efficiency %.3f, load balance %.3f, communication efficiency %.3f\n"
                  "load balance across processes (useful time per process): %.3f\n",
                  s.job.units, s.job.elapsed_s, s.job.parallel_efficiency, s.job.load_balance,
                  s.job.comm_efficiency, s.mpi_lb.load_balance);
    os << line;
  }
  os << "label                          count      mean_us       max_us     total_s\n";
  for (const auto& r : s.labels) {
    std::snprintf(line, sizeof line, "%-26.26s %9llu %12.3f %12.3f %11.6f\n", r.name.c_str(),
                  static_cast<unsigned long long>(r.stats.count), r.mean_us(),
                  r.stats.max_ns * 1e-3, r.stats.total_ns * 1e-9);
    os << line;
  }
}

}  // namespace joule::trace_format
