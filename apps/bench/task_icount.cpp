// One micro workload through joule's C++ API, for counting instructions
// per task under callgrind (scripts/icount: the instruction-count guard
// that scripts/test runs, and `scripts/bench micro --callgrind`).
//
//   task_icount --workload independent|chain|wavefront|fan|rounds
//               --tasks N --workers W
//
// The workloads are those of the micro suite (workloads.hpp), sized by a
// task count instead of a time:
//   independent  N empty tasks from one creator, then one taskwait (a burst);
//   chain        N tasks inout on one object;
//   wavefront    a side x side grid (side = round(sqrt(N))), block (i,j) in
//                from its left and top neighbours and inout on itself;
//   fan          rounds of one writer (inout x) and 15 readers (in x);
//   rounds       rounds of 4 empty tasks, each round followed by a taskwait.
// A warm-up pass of each workload (1/20 of its size) runs first, so pools
// and thread contexts exist before the counts are zeroed; the measured pass
// is dumped on its own (CALLGRIND_DUMP_STATS_AT) and the script divides its
// instructions by the task count this program prints. Every thread counts
// (callgrind --separate-threads=no): the idle workers' paths are part of
// the cost. Idle spinning is off, so what idle workers execute does not
// depend on how long valgrind lets them spin (path_costs.cpp says more).
// The results are checked: a wrong count or value exits 1.
#include <joule/joule.hpp>

#include "callgrind_marks.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Relaxed: read after a taskwait, which orders it.
std::atomic<long> ran{0};

void tiny() { ran.fetch_add(1, std::memory_order_relaxed); }

long independent(long n) {
  for (long i = 0; i < n; ++i) joule::spawn([] { tiny(); });
  joule::taskwait();
  return n;
}

long chain(long n) {
  std::uint64_t x = 0;
  for (long i = 0; i < n; ++i) joule::spawn({joule::inout(x)}, [&x] { ++x; });
  joule::taskwait();
  ran.fetch_add(long(x), std::memory_order_relaxed);
  return n;
}

// Each block takes max(left, top) + 1, so block (i,j) ends at i + j - 1 and
// the corner at 2 side - 1: a missed dependency very likely breaks it.
long wavefront(long n) {
  const long side = std::max(1L, std::lround(std::sqrt(double(n))));
  const long w = side + 1;  // row 0 and column 0: boundary cells, never written
  std::vector<std::uint64_t> grid(std::size_t(w * w), 0);
  std::uint64_t* g = grid.data();
  for (long i = 1; i <= side; ++i)
    for (long j = 1; j <= side; ++j) {
      std::uint64_t& self = g[i * w + j];
      const std::uint64_t& left = g[i * w + j - 1];
      const std::uint64_t& top = g[(i - 1) * w + j];
      joule::spawn({joule::in(left), joule::in(top), joule::inout(self)},
                   [&self, &left, &top] { self = std::max(left, top) + 1; });
    }
  joule::taskwait();
  if (g[side * w + side] == std::uint64_t(2 * side - 1))
    ran.fetch_add(side * side, std::memory_order_relaxed);
  return side * side;
}

long fan(long n) {
  constexpr int kReaders = 15;
  const long rounds = std::max(1L, n / (kReaders + 1));
  std::uint64_t x = 0;
  std::atomic<std::uint64_t> seen{0};
  for (long r = 0; r < rounds; ++r) {
    joule::spawn({joule::inout(x)}, [&x] { ++x; });
    for (int k = 0; k < kReaders; ++k)
      joule::spawn({joule::in(x)}, [&x, &seen] { seen.fetch_add(x, std::memory_order_relaxed); });
  }
  joule::taskwait();
  // Round r's readers see x == r + 1: the sum over rounds of 15 (r + 1).
  const std::uint64_t want = std::uint64_t(kReaders) * std::uint64_t(rounds * (rounds + 1) / 2);
  if (x == std::uint64_t(rounds) && seen.load() == want)
    ran.fetch_add(rounds * (kReaders + 1), std::memory_order_relaxed);
  return rounds * (kReaders + 1);
}

long rounds(long n) {
  constexpr int kBatch = 4;
  const long count = std::max(1L, n / kBatch);
  for (long r = 0; r < count; ++r) {
    for (int i = 0; i < kBatch; ++i) joule::spawn([] { tiny(); });
    joule::taskwait();
  }
  return count * kBatch;
}

struct Workload {
  const char* name;
  long (*run)(long);
};
constexpr Workload kWorkloads[] = {{"independent", independent},
                                   {"chain", chain},
                                   {"wavefront", wavefront},
                                   {"fan", fan},
                                   {"rounds", rounds}};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "task_icount: %s\nusage: task_icount --workload "
               "independent|chain|wavefront|fan|rounds --tasks N (100..10000000) --workers W "
               "(1..1024)\n",
               why);
  std::exit(2);
}

long parse_long(const char* flag, const char* text, long lo, long hi) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < lo || v > hi)
    usage((std::string(flag) + " got '" + text + "'").c_str());
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const Workload* workload = nullptr;
  long tasks = 0;
  long workers = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--workload") == 0) {
      for (const Workload& w : kWorkloads)
        if (std::strcmp(argv[i + 1], w.name) == 0) workload = &w;
      if (!workload) usage((std::string("unknown workload '") + argv[i + 1] + "'").c_str());
    } else if (std::strcmp(argv[i], "--tasks") == 0) {
      tasks = parse_long("--tasks", argv[i + 1], 100, 10'000'000);
    } else if (std::strcmp(argv[i], "--workers") == 0) {
      workers = parse_long("--workers", argv[i + 1], 1, 1024);
    } else {
      usage((std::string("unknown option '") + argv[i] + "'").c_str());
    }
  }
  if (argc % 2 == 0 || !workload || tasks == 0 || workers == 0) usage("missing an option");

  joule::runtime rt({{"JOULE_WORKERS", std::to_string(workers)},
                     {"JOULE_SPIN_US", "0"},
                     {"JOULE_SPIN_MAX_US", "0"},
                     {"JOULE_LENDING", "off"},
                     {"JOULE_DVFS", "none"},
                     {"JOULE_ENERGY_POLICY", "none"},
                     {"JOULE_OVERSUBSCRIBED", "no"}});
  if (joule::num_workers() != workers) {
    std::fprintf(stderr, "task_icount: asked for %ld workers, got %d\n", workers,
                 joule::num_workers());
    return 1;
  }
  const long warm = workload->run(std::max(100L, tasks / 20));
  const long warm_ran = ran.exchange(0);
  CALLGRIND_ZERO_STATS;
  const long done = workload->run(tasks);
  CALLGRIND_DUMP_STATS_AT("measured");
  const long measured_ran = ran.exchange(0);
  if (warm_ran != warm || measured_ran != done) {
    std::fprintf(stderr,
                 "task_icount: %s: wrong result (warm-up %ld of %ld, measured %ld of %ld)\n",
                 workload->name, warm_ran, warm, measured_ran, done);
    return 1;
  }
  std::printf("task_icount: workload=%s workers=%ld tasks=%ld\n", workload->name, workers, done);
  return 0;
}
