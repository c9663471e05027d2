#include "app.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "app_cli.hpp"  // apps/common

namespace jacobi {
namespace {

struct Options {
  apps::CommonOptions common{.n = 2048, .bs = 512};
  Problem problem;
};

// The checks that relate two arguments (CLI11 checks each one alone).
void validate(Options& o) {
  apps::check_block_divides(o.common, "block");
  Problem& p = o.problem;
  p.n = o.common.n;
  p.bs = o.common.bs;
  if (p.heavy_blocks > p.blocks())
    throw CLI::ValidationError("--heavy-blocks",
                               std::to_string(p.heavy_blocks) + " is more than the " +
                                   std::to_string(p.blocks()) + " blocks; allowed: 0 .. " +
                                   std::to_string(p.blocks()));
}

void add_options(CLI::App& app, Options& o) {
  Problem& p = o.problem;
  apps::add_common_options(app, o.common, "block");
  app.add_option("--iterations", p.iterations, "Jacobi iterations")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--sweeps", p.sweeps, "sweeps of each block per iteration (work per task)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--imbalance", p.imbalance, "a heavy block sweeps this many times as often")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--heavy-blocks", p.heavy_blocks,
                 "how many blocks (the first, row-major) are heavy")
      ->capture_default_str();
}

void print_settings(const Runner& r, const Problem& p) {
  std::printf("jacobi: 2-D Jacobi, blocks as tasks, on %s\n", r.runtime());
  std::printf("  workers     %d\n", r.workers());
  std::printf("  N           %zu\n", p.n);
  std::printf("  block size  %zu (%zu x %zu blocks)\n", p.bs, p.blocks_per_side(),
              p.blocks_per_side());
  std::printf("  iterations  %d\n", p.iterations);
  std::printf("  sweeps      %d per block and iteration, x%d on %zu heavy block(s)\n", p.sweeps,
              p.imbalance, p.heavy_blocks);
}

// Times the iterations; the result is in buffer result_buffer(p).
double run_timed(Runner& r, Grid& g, const Problem& p) {
  r.prepare(g, p);
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < p.iterations; ++it) r.iterate(g, p, it % 2);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool verify(const Grid& g, const Problem& p) {
  Grid ref(p.n);
  ref.fill();
  solve_sequential(ref, p);
  const double diff = g.max_difference(ref, result_buffer(p));
  // Same kernel, same arithmetic per point: the results are bit-identical.
  const bool ok = diff == 0.0;
  std::printf("  check       max |x - x_sequential| = %.3e  %s\n", diff, ok ? "PASS" : "FAIL");
  return ok;
}

int run(Runner& r, const Options& o) {
  const Problem& p = o.problem;
  Grid g(p.n);
  g.fill();
  r.start(o.common.workers);
  const double secs = run_timed(r, g, p);
  const int workers = r.workers();
  print_settings(r, p);
  // Stopped before the check, so that joule's JOULE_REPORT (printed at stop)
  // covers the iterations, not the sequential reference.
  r.stop();
  const double gflops = p.flops() / secs * 1e-9;
  std::printf("  time        %.3f s\n", secs);
  std::printf("  GFLOP/s     %.2f\n", gflops);
  const bool ok = !o.common.check() || verify(g, p);
  if (!o.common.check()) std::printf("  check       skipped\n");
  std::printf(
      "result app=jacobi runtime=%s workers=%d size=%zu block=%zu time_s=%.6f gflops=%.3f "
      "check=%s\n",
      r.runtime(), workers, p.n, p.bs, secs, gflops, apps::check_word(o.common, ok));
  return ok ? 0 : 1;
}

}  // namespace

int app_main(int argc, char** argv, Runner& runner) {
  const std::string name = std::string("jacobi (") + runner.runtime() + ")";
  CLI::App app("2-D Jacobi over blocks as tasks; the result is checked against a sequential run.",
               name);
  Options o;
  add_options(app, o);
  const int status = apps::parse_command_line(app, argc, argv, [&] { validate(o); });
  if (status >= 0) return status;
  try {
    return run(runner, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jacobi: %s\n", e.what());
    return 2;
  }
}

}  // namespace jacobi
