// The platform's JOULE_REPORT section.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "observer.hpp"
#include "platform.hpp"
#include "platform_listener.hpp"
#include "text.hpp"

namespace joule::platform {
namespace {

std::string fmt(const char* f, double a) { return core::format_number(f, a); }

}  // namespace

// " 2.40 GHz 75.0% 1.20 GHz 25.0%": the P-states a domain spent time at,
// highest first.
std::string residency_text(const std::vector<std::uint32_t>& table,
                           const std::vector<std::uint64_t>& res) {
  std::uint64_t total = 0;
  for (auto v : res) total += v;
  std::string out;
  for (std::size_t i = std::min(table.size(), res.size()); i-- > 0;)
    if (res[i])
      out += " " + fmt("%.2f", table[i] / 1e6) + " GHz " +
             fmt("%.1f", 100.0 * double(res[i]) / double(std::max<std::uint64_t>(1, total))) + "%";
  return out;
}

void Platform::report(std::ostream& os) const {
  const EnergyReading& r = sensors_.final_reading();
  const double secs = r.seconds > 0 ? r.seconds : 1e-9;
  os << "== platform ==\n" << describe() << "\n";
  // A shared service meter measures the node, not this job (meter_service.cpp).
  const EnergyMeter* meter = sensors_.meter();
  const std::string scope = meter && !meter->note().empty() ? ", node-level" : "";
  const std::string how =
      r.chips_measured ? "measured (" + r.source + scope + ")" : "modelled (" + r.source + ")";
  os << "time: " << fmt("%.3f", r.seconds) << " s, energy: " << fmt("%.3f", r.total_joules())
     << " J " << how << ", average power: " << fmt("%.2f", r.total_joules() / secs) << " W\n";
  report_chips(os);
  if (!r.domains.empty()) {
    os << "  measured domains:";
    for (const auto& d : r.domains) os << " " << d.name << " " << fmt("%.3f", d.joules) << " J;";
    os << "\n";
  }
  report_residency(os);
  report_labels(os);
  if (listener_) listener_->report(os);
}

// Per chip with workers (or measured energy): its energy and temperature,
// then each worker's core.
void Platform::report_chips(std::ostream& os) const {
  const EnergyReading& r = sensors_.final_reading();
  const double secs = r.seconds > 0 ? r.seconds : 1e-9;
  const std::vector<double> last_temp = sensors_.last_temperatures();
  const std::vector<double>& max_temp = sensors_.max_temperatures();
  const auto& slots = workers_.slots();
  for (int c = 0; c < machine_.num_chips(); ++c) {
    const auto cu = std::size_t(c);
    const auto cpus = workers_.cpus_of_chip(c);
    if (cpus.empty() && !(r.chips_measured && r.chip_joules[cu] > 0)) continue;
    os << "  chip " << c << ": " << fmt("%.3f", r.chip_joules[cu]) << " J "
       << (r.chips_measured ? "measured" : "modelled") << ", "
       << fmt("%.2f", r.chip_joules[cu] / secs) << " W";
    if (r.chips_measured) os << " (model: " << fmt("%.3f", r.chip_model_joules[cu]) << " J)";
    if (cu < last_temp.size() && !std::isnan(last_temp[cu]))
      os << ", temperature " << fmt("%.1f", last_temp[cu]) << " C (max "
         << fmt("%.1f", max_temp[cu]) << " C, "
         << (sensors_.thermal().measured() ? "measured" : "RC model") << ")";
    os << "\n";
    for (std::size_t w = 0; w < slots.size(); ++w) {
      if (slots[w]->chip != c) continue;
      std::uint64_t sleep = 0;
      const auto a = workers_.active_of(*slots[w], sensors_.end_ns(), &sleep);
      std::uint64_t act = 0;
      for (auto v : a) act += v;
      os << "    core: cpu " << slots[w]->cpu << " (worker " << w
         << "): " << fmt("%.3f", r.worker_joules[w]) << " J modelled, "
         << fmt("%.2f", r.worker_joules[w] / secs) << " W, active "
         << fmt("%.1f", 100.0 * double(act) / double(std::max<std::uint64_t>(1, act + sleep)))
         << " %\n";
    }
  }
}

void Platform::report_residency(std::ostream& os) const {
  const Dvfs& dvfs = freq_.backend();
  const auto& slots = workers_.slots();
  const std::uint64_t end_ns = sensors_.end_ns();
  if (dvfs.num_domains() == 0) {
    os << "frequency residency: not controlled (dvfs " << dvfs.name() << "), model assumes "
       << fmt("%.2f", freq_.nominal().back() / 1e6) << " GHz\n";
    return;
  }
  os << "frequency residency:\n";
  std::vector<int> seen;
  for (const auto& s : slots) {
    const int d = dvfs.domain_of(s->cpu);
    if (d < 0 || std::find(seen.begin(), seen.end(), d) != seen.end()) continue;
    seen.push_back(d);
    const auto res = dvfs.residency(d, end_ns);
    os << "  cpu " << core::format_cpu_list(dvfs.domain_cpus(d)) << ":"
       << residency_text(dvfs.pstates(s->cpu), res);
    if (const std::string note = dvfs.domain_note(d); !note.empty()) os << " (" << note << ")";
    os << "\n";
  }
  if (dvfs.caps() & kCapStretch) {
    std::uint64_t tasks = 0, ns = 0, stall = 0;
    for (const auto& s : slots)
      tasks += s->stretched_tasks, ns += s->stretched_ns, stall += s->stalled_ns;
    os << "emulated DVFS: " << tasks << " task(s) stretched by " << fmt("%.6f", double(ns) * 1e-9)
       << " s in total; frequency-change stalls " << fmt("%.6f", double(stall) * 1e-9) << " s\n";
  }
}

void Platform::report_labels(std::ostream& os) const {
  const auto stats = workers_.label_stats();
  if (stats.empty()) return;
  const auto& names = counters_.names();
  os << "tasks per label" << (counters_.on() && names.empty() ? " (counters unavailable)" : "")
     << ":\n";
  char row[256];
  std::snprintf(row, sizeof row, "  %-24s %10s %12s %12s", "label", "tasks", "time s", "stretch s");
  os << row;
  for (const auto& n : names) os << " " << n;
  os << "\n";
  for (const auto& l : stats) {
    std::snprintf(row, sizeof row, "  %-24s %10llu %12.6f %12.6f", l.label.c_str(),
                  static_cast<unsigned long long>(l.tasks), double(l.ns) * 1e-9,
                  double(l.stretched_ns) * 1e-9);
    os << row;
    for (std::size_t i = 0; i < names.size(); ++i)
      os << " " << (i < l.counters.size() ? std::to_string(l.counters[i]) : "-");
    os << "\n";
  }
}

}  // namespace joule::platform
