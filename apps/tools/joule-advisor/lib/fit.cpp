#include "fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace joule::advisor {
namespace {

struct Sample {
  Shape shape;
  double freq = 0, time = 0, power = 0;
};

struct TimeFit {
  DeviceModel model;
  std::vector<Sample> samples;
  double fixed_work = 0;  // > 0: W measured by counters, not fitted
  bool fit_locality = false;
  bool fit_stall_freq = false;  // runs at more than one frequency
  bool forms_differ = false;    // a run with a shared core while other cores are busy
};

double logistic(double x) { return 1 / (1 + std::exp(-x)); }

// x = [log a, log m, logit u, (log W), (logit s), (logit δ)]: unconstrained, so the
// simplex cannot leave the parameters' valid ranges.
TimeParams unpack(const std::vector<double>& x, const TimeFit& f) {
  TimeParams p;
  p.intra = std::exp(x[0]);
  p.mem = std::exp(x[1]);
  p.queue = 0.999 * logistic(x[2]);
  size_t k = 3;
  p.work_cycles = f.fixed_work > 0 ? f.fixed_work : std::exp(x[k++]);
  p.locality = f.fit_locality ? logistic(x[k++]) : 0;
  p.stall_freq_exp = f.fit_stall_freq ? logistic(x[k]) : 1;
  p.contention = f.model.time.contention;
  return p;
}

double time_error(const std::vector<double>& x, const void* ctx) {
  const auto& f = *static_cast<const TimeFit*>(ctx);
  DeviceModel m = f.model;
  m.time = unpack(x, f);
  double sum = 0;
  for (const Sample& s : f.samples) {
    const double e = std::log(predict(m, s.shape, s.freq).time_s / s.time);
    sum += e * e;
  }
  return sum;
}

std::vector<double> start_point(const TimeFit& f, double a, double m, double u) {
  std::vector<double> x = {std::log(a), std::log(m), std::log(u / (1 - u))};
  if (f.fixed_work <= 0) {
    double least = 1e300;  // W·(1 + stalls) >= W: the cheapest run bounds W
    for (const Sample& s : f.samples)
      least = std::min(least, s.time * s.shape.threads * s.freq * 1e9);
    x.push_back(std::log(least / 1.3));
  }
  if (f.fit_locality) x.push_back(-1.0);
  if (f.fit_stall_freq) x.push_back(0.0);
  return x;
}

TimeParams fit_time(const TimeFit& f) {
  std::vector<double> best;
  double best_err = 1e300;
  for (double a : {0.05, 0.5})
    for (double m : {0.05, 0.5})
      for (double u : {0.2, 0.8}) {
        std::vector<double> x = nelder_mead(time_error, &f, start_point(f, a, m, u), 0.5, 1500);
        x = nelder_mead(time_error, &f, x, 0.1, 1500);  // restart: escape a collapsed simplex
        const double err = time_error(x, &f);
        if (err < best_err) best_err = err, best = x;
      }
  return unpack(best, f);
}

// Least squares for P = idle + core·c·φ + thread·t·φ at a fixed γ; returns
// the squared residual. A tiny ridge keeps one-frequency, one-shape data
// (collinear columns) solvable.
double solve_power(const std::vector<Sample>& ss, double f_ref, double gamma, PowerParams& out) {
  std::array<std::array<double, 4>, 3> a{};
  for (const Sample& s : ss) {
    const double phi = std::pow(s.freq / f_ref, gamma);
    const std::array<double, 3> row = {1, s.shape.cores * phi, s.shape.threads * phi};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) a[i][j] += row[i] * row[j];
      a[i][3] += row[i] * s.power;
    }
  }
  for (int i = 0; i < 3; ++i) a[i][i] += 1e-9 * (a[i][i] + 1);
  for (int c = 0; c < 3; ++c)  // Gauss-Jordan; the matrix is SPD
    for (int r = 0; r < 3; ++r) {
      if (r == c) continue;
      const double k = a[r][c] / a[c][c];
      for (int j = c; j < 4; ++j) a[r][j] -= k * a[c][j];
    }
  out = {a[0][3] / a[0][0], a[1][3] / a[1][1], a[2][3] / a[2][2], gamma};
  double res = 0;
  for (const Sample& s : ss) {
    const double phi = std::pow(s.freq / f_ref, gamma);
    const double p =
        out.idle_w + (out.core_w * s.shape.cores + out.thread_w * s.shape.threads) * phi;
    res += (p - s.power) * (p - s.power);
  }
  return res;
}

PowerParams fit_power(const std::vector<Sample>& ss, double f_ref) {
  PowerParams best;
  double best_res = 1e300;
  const bool one_freq =
      std::all_of(ss.begin(), ss.end(), [&](const Sample& s) { return s.freq == ss.front().freq; });
  if (one_freq) {  // γ cannot be seen at one frequency: assume CMOS-like 2
    solve_power(ss, f_ref, 2.0, best);
    return best;
  }
  for (double g = 0.5; g <= 4.0001; g += 0.05) {
    PowerParams p;
    const double res = solve_power(ss, f_ref, g, p);
    if (res < best_res - 1e-12 * best_res) best_res = res, best = p;
  }
  return best;
}

TimeFit collect(const DeviceModel& m, const std::vector<Run>& runs) {
  TimeFit f;
  std::vector<double> work;
  bool balanced = false, scatter_shared = false;
  for (const Run& r : runs) {
    if (r.device != m.device) continue;
    Sample s{shape_of(m.topology, r.threads, r.placement), r.freq_ghz, r.time_s,
             r.energy_j / r.time_s};
    balanced |= r.placement == card_affinity::Affinity::balanced && s.shape.busiest > 1;
    scatter_shared |= r.placement == card_affinity::Affinity::scatter && s.shape.busiest > 1;
    if (r.cycles && r.mem_stall_frac) work.push_back(*r.cycles * (1 - *r.mem_stall_frac));
    f.samples.push_back(s);
  }
  if (f.samples.size() < 4)
    throw InputError(std::string("too few ") + device_name(m.device) + " runs to fit (" +
                     std::to_string(f.samples.size()) + "; at least 4)");
  if (!work.empty()) {
    std::nth_element(work.begin(), work.begin() + work.size() / 2, work.end());
    f.fixed_work = work[work.size() / 2];
  }
  f.fit_locality = balanced && scatter_shared;
  f.forms_differ = std::any_of(f.samples.begin(), f.samples.end(), [](const Sample& s) {
    return s.shape.busiest > 1 && s.shape.cores > 1;
  });
  f.fit_stall_freq = std::any_of(f.samples.begin(), f.samples.end(),
                                 [&](const Sample& s) { return s.freq != f.samples[0].freq; });
  f.model = m;
  return f;
}

double mean_time_error(const DeviceModel& m, const std::vector<Sample>& ss) {
  double sum = 0;
  for (const Sample& s : ss) sum += std::abs(predict(m, s.shape, s.freq).time_s / s.time - 1);
  return sum / double(ss.size());
}

// Fits each contention form allowed and keeps the one with the lower mean
// time error on the runs (overlap, the thesis's, on a tie): the runs decide
// whether a core's threads hide each other's stalls. Only runs with a
// shared core while other cores are busy can tell the forms apart (the
// others fit either equally, through u → 1); without one, overlap is kept.
void fit_contention(TimeFit& f, const FitOptions& opts, DeviceModel& m, FitReport& rep) {
  rep.contention_undecided = !opts.contention && !f.forms_differ;
  double best = 1e300;
  for (Contention c : {Contention::overlap, Contention::serial}) {
    if (opts.contention && *opts.contention != c) continue;
    f.model.time.contention = c;
    DeviceModel trial = m;
    trial.time = fit_time(f);
    const double err = mean_time_error(trial, f.samples);
    (c == Contention::overlap ? rep.overlap_time_err : rep.serial_time_err) = err;
    const bool keep = rep.contention_undecided ? c == Contention::overlap : err < best;
    if (keep) best = err, m.time = trial.time;
  }
}

}  // namespace

FitReport fit_device(DeviceModel& m, const std::vector<Run>& runs, const FitOptions& opts) {
  TimeFit f = collect(m, runs);
  FitReport rep{static_cast<int>(f.samples.size())};
  rep.work_from_counters = f.fixed_work > 0;
  rep.locality_fitted = f.fit_locality;
  rep.gamma_fitted = f.fit_stall_freq;
  rep.contention_forced = opts.contention.has_value();
  fit_contention(f, opts, m, rep);
  m.power = fit_power(f.samples, m.f_ref_ghz);
  for (const Sample& s : f.samples) {
    const Prediction p = predict(m, s.shape, s.freq);
    const double et = std::abs(p.time_s / s.time - 1);
    const double ee = std::abs(p.energy_j / (s.power * s.time) - 1);
    rep.time_mean_err += et / rep.runs, rep.time_max_err = std::max(rep.time_max_err, et);
    rep.energy_mean_err += ee / rep.runs, rep.energy_max_err = std::max(rep.energy_max_err, ee);
  }
  return rep;
}

}  // namespace joule::advisor
