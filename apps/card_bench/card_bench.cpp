// card-bench: runs a compute-bound or memory-bound kernel as one card task
// on the emulated card for each (threads, placement) asked, and prints one
// CSV row per run in joule-advisor's baseline format:
//
//   card-bench --kernel compute|memory --topology "package:1 core:8 pu:4"
//              --runs compact:1,2,4 scatter:8@0.5 balanced:16 [--freqs 1.053,0.5]
//              [--reps R] [--n N] [--iters K]
//
// --freqs lists the card's P-states (JOULE_CARD_FREQS, default 1.053): a run
// without `@F` is recorded at each of them, one with `@F` at F only (one of
// the list), with the card put at that P-state (JOULE_CARD_FREQ) for the
// run, so joule-advisor can fit how time and power follow the frequency.
//
// time_s is the kernel's time on the card (transfers excluded), energy_j the
// card's power model over that time: idle W × time + the busy core and
// thread watts the card counted while the kernel ran.
#include <CLI/CLI.hpp>
#include <joule/offload.hpp>

#include <algorithm>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Run {
  std::string placement;
  int threads;
  double freq_ghz;  // one of Options::freqs
};

struct Options {
  std::string kernel = "compute", topology = "package:1 core:8 pu:4", power = "90,1.2,0.15";
  std::vector<std::string> run_specs;
  std::vector<double> freqs = {1.053};
  std::vector<Run> runs;
  int reps = 3;
  int iters = 0;  // 0: 200 (compute) or 20 (memory)
  std::int64_t n = 1 << 21;
};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Per element: a dependent chain of multiply-adds (no memory traffic).
void compute(joule::card_context& c, const double* in, double* out, std::int64_t n, int iters) {
  const double* ci = c.map(in);
  double* co = c.map(out);
  c.parallel_for(0, n, [=](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) {
      double x = ci[i];
      for (int k = 0; k < iters; ++k) x = x * 0.999999 + 1e-7;
      co[i] = x;
    }
  });
}

// STREAM triad over arrays far larger than the caches, `iters` sweeps.
void triad(joule::card_context& c, const double* in, double* out, std::int64_t n, int iters) {
  const double* ci = c.map(in);
  double* co = c.map(out);
  for (int k = 0; k < iters; ++k)
    c.parallel_for(0, n, [=](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) co[i] = co[i] + 0.5 * ci[i];
    });
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string freq_list(const std::vector<double>& freqs) {
  std::string out;
  for (double f : freqs) out += (out.empty() ? "" : ",") + number(f);
  return out;
}

double measure(const Options& o, const Run& r, double& energy) {
  const std::string threads = std::to_string(r.threads);
  joule::runtime rt{{"JOULE_CARD", "emulated"},
                    {"JOULE_CARD_TOPOLOGY", o.topology},
                    {"JOULE_CARD_THREADS", threads},
                    {"JOULE_CARD_AFFINITY", r.placement},
                    {"JOULE_CARD_POWER", o.power},
                    {"JOULE_CARD_STAGING_MB", "256"},
                    {"JOULE_CARD_FREQS", freq_list(o.freqs)},
                    {"JOULE_CARD_FREQ", number(r.freq_ghz)}};
  std::vector<double> in(std::size_t(o.n), 1.0), out(std::size_t(o.n), 0.0);
  const double* pi = in.data();
  double* po = out.data();
  double t = 0;
  double* pt = &t;
  const std::int64_t n = o.n;
  const bool mem = o.kernel == "memory";
  const int iters = o.iters > 0 ? o.iters : mem ? 20 : 200;
  const joule::card_energy before = joule::card_status();
  joule::spawn(
      {joule::in(pi, n), joule::inout(po, n), joule::out(*pt)},
      [=](joule::card_context& c) {
        const double t0 = now_s();
        if (mem)
          triad(c, pi, po, n, iters);
        else
          compute(c, pi, po, n, iters);
        *c.map(pt) = now_s() - t0;
      },
      joule::device_options{});
  joule::taskwait();
  const joule::card_energy after = joule::card_status();
  const double idle = std::atof(o.power.c_str());
  const double busy_j = (after.joules - before.joules) - idle * (after.seconds - before.seconds);
  energy = idle * t + busy_j;
  return t;
}

[[noreturn]] void bad_run(const std::string& spec, const std::string& why) {
  const std::string allowed =
      " (allowed: PLACEMENT:T,T,...[@F] with PLACEMENT compact, scatter or balanced, T >= 1 "
      "threads, F one of --freqs)";
  throw CLI::ValidationError("--runs '" + spec + "'", why + allowed);
}

double parse_freq(const std::string& spec, const std::string& text, const Options& o) {
  char* end = nullptr;
  const double f = std::strtod(text.c_str(), &end);
  const bool listed =
      std::any_of(o.freqs.begin(), o.freqs.end(), [f](double g) { return std::abs(f - g) < 1e-9; });
  if (text.empty() || *end != '\0' || !listed)
    bad_run(spec, "'" + text + "' is not one of --freqs " + freq_list(o.freqs));
  return f;
}

// PLACEMENT:T,T,...[@F] -> runs, at F or at every frequency of --freqs.
void expand(const std::string& spec, Options& o) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos) bad_run(spec, "no ':'");
  const std::string placement = spec.substr(0, colon);
  if (placement != "compact" && placement != "scatter" && placement != "balanced")
    bad_run(spec, "unknown placement '" + placement + "'");
  std::string list = spec.substr(colon + 1);
  std::vector<double> freqs = o.freqs;
  if (const auto at = list.find('@'); at != std::string::npos) {
    freqs = {parse_freq(spec, list.substr(at + 1), o)};
    list.resize(at);
  }
  for (double f : freqs) {
    std::string rest = list + ",";
    for (std::size_t p = 0, q; (q = rest.find(',', p)) != std::string::npos; p = q + 1) {
      const std::string t = rest.substr(p, q - p);
      char* end = nullptr;
      const long n = std::strtol(t.c_str(), &end, 10);
      if (t.empty() || *end != '\0' || n < 1) bad_run(spec, "'" + t + "' is not a thread count");
      o.runs.push_back({placement, int(n), f});
    }
  }
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("--kernel", o.kernel, "compute (multiply-add chains) or memory (STREAM triad)")
      ->check(CLI::IsMember({"compute", "memory"}))
      ->capture_default_str();
  app.add_option("--runs", o.run_specs, "PLACEMENT:T,T,...[@F] items")->required();
  app.add_option("--topology", o.topology, "the card's hwloc synthetic topology")
      ->capture_default_str();
  app.add_option("--power", o.power, "card power: idle,core,thread W")->capture_default_str();
  app.add_option("--freqs", o.freqs, "the card's P-states in GHz; runs without @F use each")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--reps", o.reps, "runs per configuration, the best kept")
      ->check(CLI::PositiveNumber);
  app.add_option("--n", o.n, "elements")->check(CLI::PositiveNumber);
  app.add_option("--iters", o.iters, "chain length (compute) or sweeps (memory); 0: default");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app("Compute- and memory-bound kernels on the emulated card; joule-advisor's CSV.",
               "card-bench");
  add_options(app, o);
  try {
    app.parse(argc, argv);
    for (const std::string& spec : o.run_specs) expand(spec, o);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  std::printf("# card-bench kernel=%s topology=%s n=%lld reps=%d freqs=%s (best of reps)\n",
              o.kernel.c_str(), o.topology.c_str(), static_cast<long long>(o.n), o.reps,
              freq_list(o.freqs).c_str());
  std::printf("device,threads,placement,freq_ghz,time_s,energy_j\n");
  try {
    for (const Run& r : o.runs) {
      double best_t = 1e300, best_e = 0;
      for (int k = 0; k < o.reps; ++k) {
        double e = 0;
        const double t = measure(o, r, e);
        if (t < best_t) best_t = t, best_e = e;
      }
      std::printf("card,%d,%s,%s,%.6f,%.4f\n", r.threads, r.placement.c_str(),
                  number(r.freq_ghz).c_str(), best_t, best_e);
      std::fflush(stdout);
    }
  } catch (const joule::error& e) {
    std::fprintf(stderr, "card-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
