#include "driver.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "exchange.hpp"

namespace btmz {
namespace {

struct Options {
  std::string cls = "W";
  int steps = 20;
  double ratio = 20;
  std::string packing = "lpt";
  int threads = 0;
  bool check = true;
};

// Parses on every rank (all see the same argv); only rank 0 prints.
// Returns -1 to go on, else the exit status.
int parse(int argc, char** argv, Options& o, int rank, const char* backend) {
  CLI::App app{std::string("btmz (") + backend +
               "): a BT-MZ-like multi-zone ADI solver (5x5 block-tridiagonal line solves in x, "
               "y and z) over MPI ranks"};
  app.add_option("--class", o.cls, "problem class: mesh and zones as NPB-MZ")
      ->check(CLI::IsMember({"S", "W", "A", "B", "C"}))
      ->capture_default_str();
  app.add_option("--steps", o.steps, "time steps")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--ratio", o.ratio, "largest / smallest zone size (1: equal zones, SP-MZ-like)")
      ->check(CLI::Range(1.0, 1000.0))
      ->capture_default_str();
  app.add_option("--packing", o.packing,
                 "zones to ranks: lpt (largest first to least loaded) or rows")
      ->check(CLI::IsMember({"lpt", "rows"}))
      ->capture_default_str();
  app.add_option("--threads", o.threads, "threads (workers) per rank, 0: the runtime's default")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  app.add_flag("!--no-check", o.check, "skip the comparison with a serial one-rank run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (rank == 0) return app.exit(e) == 0 ? 0 : 2;
    return e.get_exit_code() == 0 ? 0 : 2;
  }
  return -1;
}

using Norms = std::array<double, kComponents>;

Norms rms(const Norms& sums, long points) {
  Norms out{};
  for (int m = 0; m < kComponents; ++m)
    out[std::size_t(m)] = std::sqrt(sums[std::size_t(m)] / double(points));
  return out;
}

long total_points(const ZoneGrid& grid) {
  long n = 0;
  for (const Zone& z : grid.zones()) n += z.points();
  return n;
}

// Every zone on one rank, one thread: the answer any distribution must give.
Norms reference_norms(const ZoneGrid& grid, int steps, const Numerics& num) {
  std::vector<std::unique_ptr<ZoneField>> own;
  std::vector<ZoneField*> fields;
  for (const Zone& z : grid.zones()) {
    own.push_back(std::make_unique<ZoneField>(z, grid.problem()));
    fields.push_back(own.back().get());
  }
  const std::vector<int> owner(std::size_t(grid.size()), 0);
  Exchange ex(grid, owner, 0, MPI_COMM_SELF);
  for (int s = 0; s < steps; ++s) {
    ex.run(fields);
    for (ZoneField* f : fields) step_zone_serial(*f, num);
  }
  Norms sums{};
  for (ZoneField* f : fields) {
    const Norms z = f->sum_squares();
    for (int m = 0; m < kComponents; ++m) sums[std::size_t(m)] += z[std::size_t(m)];
  }
  return rms(sums, total_points(grid));
}

struct RunResult {
  Norms norms;
  double seconds;
  double exchange_seconds;  // this rank's time in the exchange (waiting for others)
};

RunResult solve(const ZoneGrid& grid, const std::vector<int>& owner, int rank, int steps,
                const Backend& backend, const Numerics& num) {
  std::vector<std::unique_ptr<ZoneField>> own;
  std::vector<ZoneField*> fields(std::size_t(grid.size()), nullptr), mine;
  for (const Zone& z : grid.zones()) {
    if (owner[std::size_t(z.id)] != rank) continue;
    own.push_back(std::make_unique<ZoneField>(z, grid.problem()));
    fields[std::size_t(z.id)] = own.back().get();
    mine.push_back(own.back().get());
  }
  Exchange ex(grid, owner, rank, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  double in_exchange = 0;
  for (int s = 0; s < steps; ++s) {
    const double e0 = MPI_Wtime();
    ex.run(fields);
    in_exchange += MPI_Wtime() - e0;
    backend.step(mine, num);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double seconds = MPI_Wtime() - t0;
  Norms sums{}, all{};
  for (ZoneField* f : mine) {
    const Norms z = f->sum_squares();
    for (int m = 0; m < kComponents; ++m) sums[std::size_t(m)] += z[std::size_t(m)];
  }
  MPI_Reduce(sums.data(), all.data(), kComponents, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  return {rms(all, total_points(grid)), seconds, in_exchange};
}

void print_setup(const ZoneGrid& grid, const std::vector<int>& owner, int ranks, const Options& o,
                 const Backend& b) {
  const ProblemClass& pc = grid.problem();
  std::printf(
      "btmz %s: class %s, mesh %dx%dx%d, %d zones (size ratio %.3g), %d steps, %d rank(s) x %d "
      "thread(s)\n",
      b.name, o.cls.c_str(), pc.gx, pc.gy, pc.gz, grid.size(), o.ratio, o.steps, ranks,
      b.threads());
  std::printf("load split (%% of points, %s packing):", o.packing.c_str());
  for (double s : load_split(grid, owner, ranks)) std::printf(" %.1f", s);
  std::printf("\n");
}

// Compares with the serial reference; true when every norm agrees to 1e-10.
bool verify(const Norms& got, const Norms& want) {
  double worst = 0;
  for (int m = 0; m < kComponents; ++m) {
    const double w = want[std::size_t(m)];
    worst = std::max(worst, std::abs(got[std::size_t(m)] - w) / std::abs(w));
  }
  std::printf("check against a serial one-rank run: max relative difference %.2e: %s\n", worst,
              worst <= 1e-10 ? "PASS" : "FAIL");
  return worst <= 1e-10;
}

int run(const Options& o, const Backend& backend, int rank, int ranks) {
  const ZoneGrid grid(problem_class(o.cls[0]), o.ratio);
  const std::vector<int> owner = assign_zones(grid, ranks, parse_packing(o.packing));
  const Numerics num;
  if (rank == 0) print_setup(grid, owner, ranks, o, backend);
  const RunResult r = solve(grid, owner, rank, o.steps, backend, num);
  std::vector<double> waits(static_cast<std::size_t>(ranks));
  MPI_Gather(&r.exchange_seconds, 1, MPI_DOUBLE, waits.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank != 0) return 0;
  std::printf("time %.4f s (%.3f ms per step); time in exchange per rank (s):", r.seconds,
              1e3 * r.seconds / o.steps);
  for (double w : waits) std::printf(" %.3f", w);
  std::printf("\nnorms:");
  for (double v : r.norms) std::printf(" %.12e", v);
  std::printf("\n");
  if (!o.check) return 0;
  return verify(r.norms, reference_norms(grid, o.steps, num)) ? 0 : 1;
}

}  // namespace

void step_zone_serial(ZoneField& z, const Numerics& num) {
  for (Phase p : kPhases) z.run(p, 0, z.rows(p), num);
}

int run_btmz(int argc, char** argv, const Backend& backend) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Options o;
  int status = parse(argc, argv, o, rank, backend.name);
  if (status < 0) {
    try {
      backend.start(o.threads);
      status = run(o, backend, rank, ranks);
      backend.stop();
    } catch (const std::exception& e) {
      if (rank == 0) std::fprintf(stderr, "btmz: %s\n", e.what());
      status = 2;
    }
  }
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}

}  // namespace btmz
