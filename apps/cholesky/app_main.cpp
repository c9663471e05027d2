// cholesky: tiled Cholesky factorisation (A = L L^T, lower) as a user-facing
// application. The kernels, the task graph and the per-runtime drivers are
// apps/bench/blocked's (one copy of the code, shared with scripts/bench blocked);
// this file replaces that benchmark's command line (driver.cpp) with the
// apps' interface:
//
//   cholesky[_RUNTIME] [--n N] [--bs B] [--workers W] [--reps R] [--no-check]
//
// Prints the settings, each rep's time, the best time and its GFLOP/s, the
// check, then one machine-readable line
//   result app=cholesky runtime=R workers=W size=N block=B time_s=S gflops=G check=ok
// Exit status: 0 on a verified result, 1 on a wrong one, 2 on bad arguments
// or a runtime error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "app_cli.hpp"  // apps/common
#include "driver.hpp"

namespace blocked {
namespace {

struct Options {
  apps::CommonOptions common{.n = 2048, .bs = 128};
  int reps = 1;
};

// One factorisation of a fresh matrix; its wall time.
double run_rep(Driver& d, TiledMatrix& m, const std::vector<TaskDesc>& tasks) {
  m.fill(App::cholesky);
  d.prepare(m);
  BodyLedger::begin_rep();
  const auto t0 = std::chrono::steady_clock::now();
  d.run(m, tasks);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  d.finish(m);
  return wall;
}

// The check: max |A - L L^T| relative to max |A|; true when within tolerance.
bool verify(const TiledMatrix& m) {
  const double err = m.factor_error(App::cholesky);
  const bool ok = err < 1e-10;
  std::printf("  check       max |A - L L^T| / max |A| = %.3e (tolerance 1e-10)  %s\n", err,
              ok ? "PASS" : "FAIL");
  return ok;
}

int run(Driver& d, const Options& o, int workers) {
  const std::size_t n = o.common.n, bs = o.common.bs;
  TiledMatrix m(n, bs);
  const std::vector<TaskDesc> tasks = build_graph(App::cholesky, m.blocks());
  d.start(workers);
  std::printf("cholesky: tiled Cholesky (lower) on %s\n", d.runtime());
  std::printf("  workers     %d\n  N           %zu\n", workers, n);
  std::printf("  block size  %zu (%zu x %zu tiles, %zu tasks)\n", bs, m.blocks(), m.blocks(),
              tasks.size());
  double best = 0;
  for (int rep = 0; rep < o.reps; ++rep) {
    const double wall = run_rep(d, m, tasks);
    best = rep == 0 ? wall : std::min(best, wall);
    std::printf("  time        %.3f s (rep %d)\n", wall, rep + 1);
  }
  d.stop();  // joule prints its JOULE_REPORT here
  const double gflops = app_flops(App::cholesky, n) / best * 1e-9;
  std::printf("  best time   %.3f s\n  GFLOP/s     %.2f\n", best, gflops);
  const bool ok = !o.common.check() || verify(m);
  if (!o.common.check()) std::printf("  check       skipped\n");
  std::printf(
      "result app=cholesky runtime=%s workers=%d size=%zu block=%zu time_s=%.6f gflops=%.3f "
      "check=%s\n",
      d.runtime(), workers, n, bs, best, gflops, apps::check_word(o.common, ok));
  return ok ? 0 : 1;
}

}  // namespace

// Replaces apps/bench/blocked/driver.cpp's driver_main (not linked here).
int driver_main(int argc, char** argv, Driver& driver) {
  CLI::App app("Tiled Cholesky factorisation; the result is checked against A.",
               std::string("cholesky (") + driver.runtime() + ")");
  Options o;
  apps::add_common_options(app, o.common, "tile");
  app.add_option("--reps", o.reps, "factorisations, each of a fresh matrix; the best is reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  const int status = apps::parse_command_line(app, argc, argv,
                                              [&] { apps::check_block_divides(o.common, "tile"); });
  if (status >= 0) return status;
  // The drivers take an explicit worker count; the sequential one has one.
  int workers = o.common.workers > 0 ? o.common.workers : apps::cpus_in_mask();
  if (std::string(driver.runtime()) == "sequential") workers = 1;
  try {
    return run(driver, o, workers);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cholesky: %s\n", e.what());
    return 2;
  }
}

}  // namespace blocked
