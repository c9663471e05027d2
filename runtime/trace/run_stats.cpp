#include "run_stats.hpp"
#include "text.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace joule::trace_format {
namespace {

std::string fmt(const char* f, double a) { return core::format_number(f, a); }

}  // namespace

void RunStats::add_thread(int worker, int cpu, const WorkerStats& s, bool guest) {
  threads_.push_back(Thread{worker, cpu, s, guest});
}

std::uint64_t RunStats::guest_useful_ns() const {
  std::uint64_t n = 0;
  for (const auto& t : threads_)
    if (t.guest) n += t.stats.useful_ns();
  return n;
}

PopMetrics RunStats::pop() const {
  std::vector<std::uint64_t> useful;
  for (const auto& t : threads_)
    if (t.worker >= 0 && !t.guest) useful.push_back(t.stats.useful_ns());
  return compute_pop(useful, elapsed_ns_);
}

std::vector<LabelRow> RunStats::labels() const {
  std::vector<LabelRow> rows;
  for (const auto& t : threads_) {
    const auto& ls = t.stats.labels();
    if (rows.size() < ls.size()) rows.resize(ls.size());
    for (std::size_t i = 0; i < ls.size(); ++i) {
      LabelStats& r = rows[i].stats;
      r.count += ls[i].count;
      r.total_ns += ls[i].total_ns;
      r.max_ns = std::max(r.max_ns, ls[i].max_ns);
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i)
    rows[i].name = i < names_.size() ? names_[i] : "label " + std::to_string(i);
  std::erase_if(rows, [](const LabelRow& r) { return r.stats.count == 0; });
  std::stable_sort(rows.begin(), rows.end(), [](const LabelRow& a, const LabelRow& b) {
    return a.stats.total_ns > b.stats.total_ns;
  });
  return rows;
}

std::array<std::uint64_t, kNumLending> RunStats::lending() const {
  std::array<std::uint64_t, kNumLending> out{};
  for (const auto& t : threads_)
    for (int i = 0; i < kNumLending; ++i) out[i] += t.stats.lending_counts()[i];
  return out;
}

std::uint64_t RunStats::tasks() const {
  std::uint64_t n = 0;
  for (const auto& t : threads_) n += t.stats.tasks();
  return n;
}

void RunStats::print(std::ostream& os) const {
  const PopMetrics m = pop();
  os << "-- trace: efficiency (POP metrics, this process) --\n"
     << "  elapsed " << fmt("%.6f", m.elapsed_s) << " s, workers " << m.units << ", useful "
     << fmt("%.6f", m.useful_s) << " s (time in task bodies)\n"
     << "  parallel efficiency      " << fmt("%.3f", m.parallel_efficiency)
     << "  = useful / (workers x elapsed)\n"
     << "  load balance             " << fmt("%.3f", m.load_balance)
     << "  = avg useful / max useful over workers\n"
     << "  communication efficiency " << fmt("%.3f", m.comm_efficiency)
     << "  = max useful / elapsed (runtime, dependency waits, serial code)\n";
  if (const std::uint64_t g = guest_useful_ns())
    os << "  plus " << fmt("%.6f", g * 1e-9)
       << " s useful on borrowed CPUs (not in the metrics above)\n";
  os << "  worker  cpu      tasks    useful_s     sleep_s\n";
  for (const auto& t : threads_) {
    if (t.worker < 0 && t.stats.tasks() == 0) continue;
    char line[160];
    const std::string who =
        t.worker < 0 ? "other" : std::to_string(t.worker) + (t.guest ? "b" : "");
    std::snprintf(line, sizeof line, "  %6s %4d %10llu %11.6f %11.6f\n", who.c_str(), t.cpu,
                  static_cast<unsigned long long>(t.stats.tasks()), t.stats.useful_ns() * 1e-9,
                  t.stats.sleep_ns() * 1e-9);
    os << line;
  }
  os << "-- trace: tasks by label --\n"
     << "  label                          count      mean_us       max_us     total_s\n";
  for (const auto& r : labels()) {
    char line[200];
    std::snprintf(line, sizeof line, "  %-26.26s %9llu %12.3f %12.3f %11.6f\n", r.name.c_str(),
                  static_cast<unsigned long long>(r.stats.count), r.mean_us(),
                  r.stats.max_ns * 1e-3, r.stats.total_ns * 1e-9);
    os << line;
  }
  const auto l = lending();
  os << "-- trace: CPU lending --\n"
     << "  lent " << l[kLend] << ", borrowed " << l[kBorrow] << ", reclaimed " << l[kReclaim]
     << ", returned " << l[kReturn]
     << " (counted from lending events; zero while no lending subsystem emits them)\n";
}

}  // namespace joule::trace_format
