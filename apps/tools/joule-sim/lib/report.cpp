#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace joule::sim {
namespace {

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// Rounded to the printed precision, so a tiny negative prints +0.00, not -0.00.
double pct(double x, double base) {
  return base != 0 ? std::round((x / base - 1) * 1e4) / 1e2 + 0.0 : 0;
}

}  // namespace

std::string result_line(const RunResult& r) {
  return format(
      "time_s=%.6f energy_j=%.3f avg_power_w=%.4f dvfs_changes=%d lb_calls=%d migrations=%d "
      "max_temp_c=%.2f dvfs_calls=%d avg_ghz=%.4f lb_time_s=%.6f",
      r.time_s, r.energy_j, r.avg_power_w, r.dvfs_changes, r.lb_calls, r.migrations, r.max_temp_c,
      r.dvfs_calls, r.avg_ghz, r.lb_time_s);
}

std::string delta_line(const RunResult& r, const RunResult& base) {
  return format(
      "vs none: dtime=%+.2f%% denergy=%+.2f%% dpower=%+.2f%% dvfs_changes=%d lb_calls=%d "
      "migrations=%d",
      pct(r.time_s, base.time_s), pct(r.energy_j, base.energy_j),
      pct(r.avg_power_w, base.avg_power_w), r.dvfs_changes, r.lb_calls, r.migrations);
}

std::string thermal_line(const RunResult& r, const RunResult& base) {
  const double t = r.time_s / base.time_s, e = r.energy_j / base.energy_j;
  // Eq. 5: the mean T_hot - T_ac ratio times t_norm, i.e. the ratio of the
  // integrals; without a room T_hot - T_ac follows the machine's power.
  const double c = r.room_dt_ks > 0 && base.room_dt_ks > 0 ? r.room_dt_ks / base.room_dt_ks
                                                           : r.avg_power_w / base.avg_power_w * t;
  return format("cool-lb: t_norm=%.4f e_norm=%.4f c_norm=%.4f etotal_norm=%.4f", t, e, c,
                0.6 * e + 0.4 * c);
}

std::string network_line(const RunResult& r) {
  return format("network: remote_messages=%d", r.remote_messages);
}

std::string lending_line(const Scenario& s, const RunResult& r) {
  const auto& l = r.lending;
  return format(
      "lending: mode=%s policy=%s ranks=%d cores=%d efficiency=%.4f tasks=%d borrowed_tasks=%d "
      "borrowed_core_s=%.6f lends=%d borrows=%d",
      s.lending.lewi ? "lewi" : "off", s.lending.auto_lend ? "auto" : "mpi", l.ranks, l.cores,
      l.efficiency(r.time_s), l.tasks, l.borrowed_tasks, l.borrowed_core_s, l.lends, l.borrows);
}

std::string lending_delta_line(const RunResult& r, const RunResult& off) {
  return format(
      "vs lending off: dtime=%+.2f%% denergy=%+.2f%% dpower=%+.2f%% speedup=%.4f "
      "efficiency=%.4f->%.4f",
      pct(r.time_s, off.time_s), pct(r.energy_j, off.energy_j), pct(r.avg_power_w, off.avg_power_w),
      r.time_s > 0 ? off.time_s / r.time_s : 0, off.lending.efficiency(off.time_s),
      r.lending.efficiency(r.time_s));
}

std::string guard_line(const RunResult& r) {
  const auto& g = r.guard;
  return format(
      "guard: trips=%llu margin=%.3f max_margin=%.3f loss=%+.4f run_loss=%+.4f rebases=%llu "
      "held=%llu noise=%.3f noise_s=%.4f",
      static_cast<unsigned long long>(g.trips), g.margin, g.max_margin, g.loss, g.run_loss,
      static_cast<unsigned long long>(g.rebases), static_cast<unsigned long long>(g.held), g.noise,
      r.noise_s);
}

std::string split_line(const RunResult& r) {
  std::string shares;
  for (double w : r.split) shares += format(shares.empty() ? "%.4f" : ",%.4f", w);
  return format("method=%s split=%s converged_at=%d restarts=%d", r.policy.c_str(), shares.c_str(),
                r.converged_at, r.restarts);
}

std::string compare_table(const std::vector<RunResult>& runs) {
  std::string out = format("%-18s %12s %14s %10s %7s %7s %7s %8s %6s %8s\n", "policy", "time_s",
                           "energy_j", "power_w", "T/T0", "E/E0", "P/P0", "changes", "lb", "migr");
  for (const auto& r : runs) {
    const auto& b = runs.front();
    out += format("%-18s %12.4f %14.2f %10.3f %7.4f %7.4f %7.4f %8d %6d %8d\n", r.policy.c_str(),
                  r.time_s, r.energy_j, r.avg_power_w, r.time_s / b.time_s, r.energy_j / b.energy_j,
                  r.avg_power_w / b.avg_power_w, r.dvfs_changes, r.lb_calls, r.migrations);
  }
  return out;
}

std::string steps_csv(const RunResult& r) {
  std::string out = "step,end_s,power_w,mean_ghz,max_temp_c,decision\n";
  for (const auto& s : r.steps)
    out += format("%d,%.6f,%.4f,%.4f,%.3f,%c\n", s.step, s.end_s, s.power_w, s.mean_ghz,
                  s.max_temp_c, s.decision);
  return out;
}

// Two stacked panels: mean frequency (GHz) and machine power (W) against time.
std::string steps_svg(const RunResult& r) {
  const double w = 800, h = 180, pad = 40;
  double tmax = 1e-12, pmax = 1e-12, fmax = 1e-12;
  for (const auto& s : r.steps)
    tmax = std::max(tmax, s.end_s), pmax = std::max(pmax, s.power_w),
    fmax = std::max(fmax, s.mean_ghz);
  auto path = [&](auto value, double top, double vmax) {
    std::string d;
    for (const auto& s : r.steps)
      d += format("%s%.2f,%.2f ", d.empty() ? "M" : "L", pad + s.end_s / tmax * (w - 2 * pad),
                  top + h - value(s) / vmax * (h - 20));
    return d;
  };
  std::string out = format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n",
      w, 2 * h + 2 * pad);
  out += format("<text x=\"%.0f\" y=\"20\">%s: mean frequency (max %.2f GHz)</text>\n", pad,
                r.policy.c_str(), fmax);
  out += "<path fill=\"none\" stroke=\"#1f77b4\" d=\"" +
         path([](const StepRecord& s) { return s.mean_ghz; }, pad, fmax) + "\"/>\n";
  out += format("<text x=\"%.0f\" y=\"%.0f\">machine power (max %.1f W), time %.2f s</text>\n", pad,
                h + pad + 20, pmax, tmax);
  out += "<path fill=\"none\" stroke=\"#d62728\" d=\"" +
         path([](const StepRecord& s) { return s.power_w; }, h + pad + 20, pmax) + "\"/>\n";
  return out + "</svg>\n";
}

}  // namespace joule::sim
