// card-bench: runs a compute-bound or memory-bound kernel as one card task
// on the emulated card for each (threads, placement) asked, and prints one
// CSV row per run in joule-advisor's baseline format:
//
//   card-bench --kernel compute|memory --topology "package:1 core:8 pu:4"
//              --runs compact:1,2,4 scatter:8 balanced:16 [--reps R] [--n N] [--iters K]
//
// time_s is the kernel's time on the card (transfers excluded), energy_j the
// card's power model over that time: idle W × time + the busy core and
// thread watts the card counted while the kernel ran.
#include <joule/offload.hpp>

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
};

struct Options {
  std::string kernel = "compute", topology = "package:1 core:8 pu:4", power = "90,1.2,0.15";
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

double measure(const Options& o, const Run& r, double& energy) {
  const std::string threads = std::to_string(r.threads);
  joule::runtime rt{{"JOULE_CARD", "emulated"},      {"JOULE_CARD_TOPOLOGY", o.topology},
                    {"JOULE_CARD_THREADS", threads}, {"JOULE_CARD_AFFINITY", r.placement},
                    {"JOULE_CARD_POWER", o.power},   {"JOULE_CARD_STAGING_MB", "256"}};
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

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--kernel")
      o.kernel = next();
    else if (a == "--topology")
      o.topology = next();
    else if (a == "--power")
      o.power = next();
    else if (a == "--reps")
      o.reps = std::atoi(next().c_str());
    else if (a == "--iters")
      o.iters = std::atoi(next().c_str());
    else if (a == "--n")
      o.n = std::atoll(next().c_str());
    else if (a == "--runs")
      while (i + 1 < argc && argv[i + 1][0] != '-') {
        const std::string spec = argv[++i];
        const auto colon = spec.find(':');
        if (colon == std::string::npos) return false;
        std::string list = spec.substr(colon + 1) + ",";
        for (std::size_t p = 0, q; (q = list.find(',', p)) != std::string::npos; p = q + 1)
          o.runs.push_back({spec.substr(0, colon), std::atoi(list.substr(p, q - p).c_str())});
      }
    else
      return false;
  }
  return (o.kernel == "compute" || o.kernel == "memory") && !o.runs.empty() && o.reps > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: card-bench --kernel compute|memory --runs PLACEMENT:T,T.. [...] "
                 "[--topology T] [--power idle,core,thread] [--reps R] [--n N] [--iters K]\n");
    return 2;
  }
  std::printf("# card-bench kernel=%s topology=%s n=%lld reps=%d (best of reps)\n",
              o.kernel.c_str(), o.topology.c_str(), static_cast<long long>(o.n), o.reps);
  std::printf("device,threads,placement,freq_ghz,time_s,energy_j\n");
  try {
    for (const Run& r : o.runs) {
      double best_t = 1e300, best_e = 0;
      for (int k = 0; k < o.reps; ++k) {
        double e = 0;
        const double t = measure(o, r, e);
        if (t < best_t) best_t = t, best_e = e;
      }
      std::printf("card,%d,%s,1.053,%.6f,%.4f\n", r.threads, r.placement.c_str(), best_t, best_e);
      std::fflush(stdout);
    }
  } catch (const joule::error& e) {
    std::fprintf(stderr, "card-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
