// pils: Parallel ImbaLance Simulation (the synthetic benchmark of the DLB
// thesis). Each MPI rank has a load (its share of the work); every iteration
// it runs its load as joule tasks in `regions` parallel regions (each closed
// by a taskwait: grain = 1/regions), optionally a serial phase, then meets the
// others in MPI_Barrier. With JOULE_LENDING=node and libjoule-mpi the ranks that
// finish first lend their CPUs while they wait, and the loaded rank borrows
// them for its remaining tasks.
//
//   mpirun -np 2 --bind-to core pils --loads 25,75 --task-us 1000
//
// Rank 0 prints a RESULT line: elapsed time, the ideal (perfectly balanced)
// and no-balancing times from the calibrated work, the efficiency
// (useful CPU time / (elapsed x CPUs)) and how many tasks ran on CPUs the
// rank borrowed.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "joule/joule.hpp"
#include "kernel.hpp"

namespace {

struct Options {
  std::vector<double> loads{50, 50};
  double unit_ms = 4;  // serial work per load unit per iteration
  int regions = 1;
  double task_us = 1000;
  int iterations = 10;
  int warmup = 1;
  double serial_us = 0;  // serial phase per iteration (main thread, other workers idle)
  int serial_rank = -1;  // -1: every rank
  bool verbose = false;
};

[[noreturn]] void usage(int rc) {
  std::printf(
      "usage: pils [--loads L0,L1,...] [--unit-ms U] [--regions R | --grain G] [--task-us T]\n"
      "            [--iterations N] [--warmup W] [--serial-us S] [--serial-rank R] [-v]\n"
      "  --loads      per-rank load (shares of the work; the last repeats)  (50,50)\n"
      "  --unit-ms    serial milliseconds of work per load unit per iteration (4)\n"
      "  --regions    parallel regions (task batches + taskwait) per barrier (1)\n"
      "  --grain      1/regions, as in the thesis\n"
      "  --task-us    duration of one task in microseconds (1000)\n"
      "  --iterations measured iterations (10); --warmup unmeasured ones (1)\n"
      "  --serial-us  serial phase per iteration on the main thread (0)\n"
      "  --serial-rank which rank has the serial phase (-1: all)\n");
  std::exit(rc);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) usage(2);
      return argv[++i];
    };
    if (a == "--loads") {
      o.loads.clear();
      std::string s = next();
      for (std::size_t p = 0; p <= s.size();) {
        const std::size_t c = std::min(s.find(',', p), s.size());
        o.loads.push_back(std::atof(s.substr(p, c - p).c_str()));
        p = c + 1;
      }
    } else if (a == "--unit-ms")
      o.unit_ms = std::atof(next());
    else if (a == "--regions")
      o.regions = std::max(1, std::atoi(next()));
    else if (a == "--grain")
      o.regions = std::max(1, int(std::lround(1.0 / std::atof(next()))));
    else if (a == "--task-us")
      o.task_us = std::max(1.0, std::atof(next()));
    else if (a == "--iterations")
      o.iterations = std::max(1, std::atoi(next()));
    else if (a == "--warmup")
      o.warmup = std::max(0, std::atoi(next()));
    else if (a == "--serial-us")
      o.serial_us = std::max(0.0, std::atof(next()));
    else if (a == "--serial-rank")
      o.serial_rank = std::atoi(next());
    else if (a == "-v")
      o.verbose = true;
    else if (a == "--help" || a == "-h")
      usage(0);
    else
      usage(2);
  }
  return o;
}

std::vector<int> own_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

struct Rank {
  int id = 0, size = 1;
  double load = 50;
  double iters_per_us = 1;
  std::vector<int> cpus;
  std::atomic<long> tasks{0}, borrowed{0};
  // Wall time of the tasks on own and on borrowed CPUs (-v): a borrowed CPU
  // shared with a lender that busy-waits shows as slower tasks there.
  std::atomic<double> own_s{0}, borrowed_s{0};
  bool owns(int cpu) const { return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end(); }
};

// One iteration of this rank's compute phase: `regions` batches of tasks.
void compute_phase(const Options& o, Rank& r) {
  const double work_us = r.load * o.unit_ms * 1000.0;
  const double region_us = work_us / o.regions;
  const int ntasks = std::max(1, int(std::lround(region_us / o.task_us)));
  const auto iters = std::uint64_t(r.iters_per_us * region_us / ntasks);
  for (int g = 0; g < o.regions; ++g) {
    for (int k = 0; k < ntasks; ++k)
      joule::spawn([&r, iters] {
        const double t0 = pils::now_s();
        volatile double sink = pils::compute(iters);
        (void)sink;
        const double dt = pils::now_s() - t0;
        r.tasks.fetch_add(1, std::memory_order_relaxed);
        if (r.owns(sched_getcpu())) {
          r.own_s.fetch_add(dt, std::memory_order_relaxed);
        } else {
          r.borrowed.fetch_add(1, std::memory_order_relaxed);
          r.borrowed_s.fetch_add(dt, std::memory_order_relaxed);
        }
      });
    joule::taskwait();
  }
  if (o.serial_us > 0 && (o.serial_rank < 0 || o.serial_rank == r.id)) {
    volatile double sink = pils::compute(std::uint64_t(r.iters_per_us * o.serial_us));
    (void)sink;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const Options o = parse(argc, argv);
  Rank r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r.id);
  MPI_Comm_size(MPI_COMM_WORLD, &r.size);
  r.load = o.loads[std::min<std::size_t>(std::size_t(r.id), o.loads.size() - 1)];
  r.cpus = own_cpus();
  double rate = r.id == 0 ? pils::calibrate(200) : 0;
  MPI_Bcast(&rate, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);  // every rank does the same work per unit
  r.iters_per_us = rate;

  double elapsed = 0;
  for (int it = 0; it < o.warmup + o.iterations; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = pils::now_s();
    if (it == o.warmup) r.tasks = 0, r.borrowed = 0, r.own_s = 0, r.borrowed_s = 0;
    compute_phase(o, r);
    MPI_Barrier(MPI_COMM_WORLD);
    if (it >= o.warmup) elapsed += pils::now_s() - t0;
  }

  // The model: each rank's work in CPU-seconds, the CPUs of the node.
  const bool serial_here = o.serial_us > 0 && (o.serial_rank < 0 || o.serial_rank == r.id);
  const double tasks_s = o.iterations * r.load * o.unit_ms * 1e-3;
  const double serial_s = serial_here ? o.iterations * o.serial_us * 1e-6 : 0;
  const double work = tasks_s + serial_s;
  double total_work = 0, max_time = 0, cpus = double(r.cpus.size()), total_cpus = 0;
  // Time without balancing: the tasks on the rank's own CPUs, then the
  // serial phase on one of them.
  const double alone = tasks_s / cpus + serial_s;
  MPI_Reduce(&work, &total_work, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&alone, &max_time, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&cpus, &total_cpus, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  long counts[2] = {r.tasks.load(), r.borrowed.load()}, sums[2] = {0, 0};
  MPI_Reduce(counts, sums, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (o.verbose) {
    const long own = counts[0] - counts[1];
    std::fprintf(
        stderr,
        "pils: rank %d load %.1f cpus %zu tasks %ld borrowed %ld; mean task %.0f us on own "
        "CPUs, %.0f us on borrowed ones\n",
        r.id, r.load, r.cpus.size(), counts[0], counts[1],
        own ? 1e6 * r.own_s.load() / double(own) : 0.0,
        counts[1] ? 1e6 * r.borrowed_s.load() / double(counts[1]) : 0.0);
  }
  if (r.id == 0) {
    const char* lewi = std::getenv("JOULE_LENDING");
    if (!lewi) lewi = std::getenv("JOULE_LEWI");  // the old name, still accepted
    std::string loads;
    for (int i = 0; i < r.size; ++i)
      loads += (i ? "," : "") +
               std::to_string(int(o.loads[std::min<std::size_t>(i, o.loads.size() - 1)]));
    std::printf(
        "RESULT ranks=%d loads=%s regions=%d task_us=%.0f iterations=%d serial_us=%.0f lewi=%s "
        "elapsed_s=%.4f ideal_s=%.4f nolb_s=%.4f efficiency=%.4f tasks=%ld borrowed_tasks=%ld\n",
        r.size, loads.c_str(), o.regions, o.task_us, o.iterations, o.serial_us, lewi ? lewi : "off",
        elapsed, total_work / total_cpus, max_time, total_work / (elapsed * total_cpus), sums[0],
        sums[1]);
  }
  MPI_Finalize();
  return 0;
}
