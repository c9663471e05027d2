// Energy readings (measured or modelled) and the JOULE_REPORT section.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>

#include "observer.hpp"
#include "platform.hpp"
#include "platform_listener.hpp"
#include "text.hpp"
#include "worker_slot.hpp"

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

std::vector<std::uint64_t> Platform::active_of(const WorkerSlot& s, std::uint64_t now,
                                               std::uint64_t* sleep) const {
  std::vector<std::uint64_t> a(s.table->size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = s.active_ns[i].load(std::memory_order_relaxed);
  *sleep = s.sleep_ns.load(std::memory_order_relaxed);
  const std::uint64_t last = s.last.load(std::memory_order_relaxed);
  if (s.running.load(std::memory_order_relaxed) && now > last) {  // the open interval
    if (s.sleeping.load(std::memory_order_relaxed))
      *sleep += now - last;
    else {
      const int lvl = dvfs_->level(s.cpu);
      a[lvl < 0 ? a.size() - 1 : std::size_t(lvl)] += now - last;
    }
  }
  if (task_clock_meter_ && s.task_clock_ns >= 0) {
    // Measured CPU time replaces the hooks' view of active time; the split
    // across P-states keeps the hooks' proportions.
    std::uint64_t total = 0;
    for (auto v : a) total += v;
    const std::uint64_t wall = total + *sleep,
                        cpu = std::min<std::uint64_t>(std::uint64_t(s.task_clock_ns), wall);
    for (auto& v : a) v = total ? std::uint64_t(double(v) * double(cpu) / double(total)) : 0;
    if (!total && !a.empty()) a.back() = cpu;
    *sleep = wall - cpu;
  }
  return a;
}

EnergyReading Platform::reading_at(std::uint64_t now) const {
  EnergyReading r;
  r.seconds = double(now - start_ns_) * 1e-9;
  const auto chips = std::size_t(num_chips());
  r.chip_model_joules.assign(chips, 0.0);
  std::vector<bool> used(chips, false);
  for (const auto& s : slots_) {
    std::uint64_t sleep = 0;
    const auto active = active_of(*s, now, &sleep);
    r.worker_joules.push_back(model_.core_joules(*s->table, active, sleep));
    r.chip_model_joules[std::size_t(s->chip)] += r.worker_joules.back();
    used[std::size_t(s->chip)] = true;
  }
  for (std::size_t c = 0; c < chips; ++c)
    if (used[c]) r.chip_model_joules[c] += model_.uncore_joules(now - start_ns_);
  r.chip_joules = r.chip_model_joules;
  r.source = task_clock_meter_ ? "model (perf::TASK-CLOCK)" : "model";
  if (meter_) {
    r.domains = meter_->totals();
    std::vector<double> measured(chips, 0.0);
    for (const auto& d : r.domains)
      if (d.kind == "package" && d.chip >= 0 && std::size_t(d.chip) < chips) {
        measured[std::size_t(d.chip)] += d.joules;
        r.chips_measured = true;
      }
    if (r.chips_measured) {
      r.chip_joules = measured;
      r.source = meter_->name();
    }
  }
  return r;
}

EnergyReading Platform::read_energy() {
  if (ended_) return final_;
  std::lock_guard guard(sample_mu_);
  const std::uint64_t now = core::now_ns();
  if (meter_) meter_->sample();
  return reading_at(now);
}

std::vector<double> Platform::temperatures() {
  if (ended_) return last_temp_;
  std::lock_guard guard(sample_mu_);
  sample_locked(core::now_ns());
  return last_temp_;
}

std::vector<LabelStats> Platform::label_stats() const {
  std::map<std::string, LabelStats> merged;
  for (const auto& s : slots_)
    for (const auto& [label, acc] : s->labels) {
      const std::string name = label ? label : "(unlabelled)";
      LabelStats& m = merged[name];
      m.label = name;
      m.tasks += acc.tasks;
      m.ns += acc.ns;
      m.stretched_ns += acc.stretched_ns;
      m.counters.resize(std::max(m.counters.size(), acc.counters.size()), 0);
      for (std::size_t i = 0; i < acc.counters.size(); ++i) m.counters[i] += acc.counters[i];
    }
  std::vector<LabelStats> out;
  for (auto& [k, v] : merged) out.push_back(std::move(v));
  return out;
}

void Platform::report(std::ostream& os) const {
  const EnergyReading& r = final_;
  const double secs = r.seconds > 0 ? r.seconds : 1e-9;
  os << "== platform ==\n" << describe() << "\n";
  // A shared service meter measures the node, not this job (meter_service.cpp).
  const std::string scope = meter_ && !meter_->note().empty() ? ", node-level" : "";
  const std::string how =
      r.chips_measured ? "measured (" + r.source + scope + ")" : "modelled (" + r.source + ")";
  os << "time: " << fmt("%.3f", r.seconds) << " s, energy: " << fmt("%.3f", r.total_joules())
     << " J " << how << ", average power: " << fmt("%.2f", r.total_joules() / secs) << " W\n";
  for (int c = 0; c < num_chips(); ++c) {
    const auto cu = std::size_t(c);
    const auto cpus = worker_cpus_of_chip(c);
    if (cpus.empty() && !(r.chips_measured && r.chip_joules[cu] > 0)) continue;
    os << "  chip " << c << ": " << fmt("%.3f", r.chip_joules[cu]) << " J "
       << (r.chips_measured ? "measured" : "modelled") << ", "
       << fmt("%.2f", r.chip_joules[cu] / secs) << " W";
    if (r.chips_measured) os << " (model: " << fmt("%.3f", r.chip_model_joules[cu]) << " J)";
    if (cu < last_temp_.size() && !std::isnan(last_temp_[cu]))
      os << ", temperature " << fmt("%.1f", last_temp_[cu]) << " C (max "
         << fmt("%.1f", max_temp_[cu]) << " C, " << (thermal_->measured() ? "measured" : "RC model")
         << ")";
    os << "\n";
    for (std::size_t w = 0; w < slots_.size(); ++w) {
      if (slots_[w]->chip != c) continue;
      std::uint64_t sleep = 0;
      const auto a = active_of(*slots_[w], end_ns_, &sleep);
      std::uint64_t act = 0;
      for (auto v : a) act += v;
      os << "    core: cpu " << slots_[w]->cpu << " (worker " << w
         << "): " << fmt("%.3f", r.worker_joules[w]) << " J modelled, "
         << fmt("%.2f", r.worker_joules[w] / secs) << " W, active "
         << fmt("%.1f", 100.0 * double(act) / double(std::max<std::uint64_t>(1, act + sleep)))
         << " %\n";
    }
  }
  if (!r.domains.empty()) {
    os << "  measured domains:";
    for (const auto& d : r.domains) os << " " << d.name << " " << fmt("%.3f", d.joules) << " J;";
    os << "\n";
  }
  report_residency(os);
  report_labels(os);
  if (listener_) listener_->report(os);
}

void Platform::report_residency(std::ostream& os) const {
  if (dvfs_->num_domains() == 0) {
    os << "frequency residency: not controlled (dvfs " << dvfs_->name() << "), model assumes "
       << fmt("%.2f", nominal_.back() / 1e6) << " GHz\n";
    return;
  }
  os << "frequency residency:\n";
  std::vector<int> seen;
  for (const auto& s : slots_) {
    const int d = dvfs_->domain_of(s->cpu);
    if (d < 0 || std::find(seen.begin(), seen.end(), d) != seen.end()) continue;
    seen.push_back(d);
    const auto res = dvfs_->residency(d, end_ns_);
    os << "  cpu " << core::format_cpu_list(dvfs_->domain_cpus(d)) << ":"
       << residency_text(dvfs_->pstates(s->cpu), res);
    if (const std::string note = dvfs_->domain_note(d); !note.empty()) os << " (" << note << ")";
    os << "\n";
  }
  if (dvfs_->caps() & kCapStretch) {
    std::uint64_t tasks = 0, ns = 0, stall = 0;
    for (const auto& s : slots_)
      tasks += s->stretched_tasks, ns += s->stretched_ns, stall += s->stalled_ns;
    os << "emulated DVFS: " << tasks << " task(s) stretched by " << fmt("%.6f", double(ns) * 1e-9)
       << " s in total; frequency-change stalls " << fmt("%.6f", double(stall) * 1e-9) << " s\n";
  }
}

void Platform::report_labels(std::ostream& os) const {
  const auto stats = label_stats();
  if (stats.empty()) return;
  os << "tasks per label" << (counters_ && counter_names_.empty() ? " (counters unavailable)" : "")
     << ":\n";
  char row[256];
  std::snprintf(row, sizeof row, "  %-24s %10s %12s %12s", "label", "tasks", "time s", "stretch s");
  os << row;
  for (const auto& n : counter_names_) os << " " << n;
  os << "\n";
  for (const auto& l : stats) {
    std::snprintf(row, sizeof row, "  %-24s %10llu %12.6f %12.6f", l.label.c_str(),
                  static_cast<unsigned long long>(l.tasks), double(l.ns) * 1e-9,
                  double(l.stretched_ns) * 1e-9);
    os << row;
    for (std::size_t i = 0; i < counter_names_.size(); ++i)
      os << " " << (i < l.counters.size() ? std::to_string(l.counters[i]) : "-");
    os << "\n";
  }
}

}  // namespace joule::platform
