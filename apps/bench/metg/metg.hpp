// METG: the stencil_1d task graph of Task Bench (Slaughter et al., "Task
// Bench: A Parameterized Benchmark for Evaluating Parallel Runtime
// Performance", SC'20), shared by every runtime's program in this folder so
// that each builds the same graph and runs the same kernel.
//
// A graph is `steps` rows of `width` points; point (t, x) reads the points
// x-1, x, x+1 of row t-1 (those that exist) and writes its own cell, after a
// busy loop of `iters` dependent multiply-adds (the kernel: no memory traffic,
// one iteration ~ one "FLOP"). Every row has its own cells, so the graph has
// exactly the stencil's true dependencies and no anti-dependencies. With
// several graphs, row t of every graph is created before row t+1 of any, as
// Task Bench interleaves them.
//
// A program sweeps the kernel sizes it is given, largest first, and prints
// one `metg ...` line per size; scripts/bench metg turns the lines into
// efficiency and METG(50%) (docs/performance-fine-grained.md, "METG: the
// smallest efficient task").
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace metg {

struct alignas(64) Cell {  // one cache line per point: no false sharing
  std::uint64_t v = 0;
};

// The kernel: `iters` dependent multiply-adds (Knuth's MMIX LCG constants).
// The empty asm keeps compilers from folding or vectorising the chain.
inline std::uint64_t kernel(std::uint64_t v, long iters) {
  for (long i = 0; i < iters; ++i) {
    v = v * 6364136223846793005ULL + 1442695040888963407ULL;
    asm volatile("" : "+r"(v));
  }
  return v;
}

class Grid {
 public:
  Grid(int graphs, int steps, int width)
      : graphs_(graphs),
        steps_(steps),
        width_(width),
        cells_(static_cast<std::size_t>(graphs) * steps * width) {}

  int graphs() const { return graphs_; }
  int steps() const { return steps_; }
  int width() const { return width_; }
  long tasks() const { return long{graphs_} * steps_ * width_; }
  Cell& at(int g, int t, int x) {
    return cells_[(static_cast<std::size_t>(g) * steps_ + t) * width_ + x];
  }

  // The body of task (g, t, x): reads its (up to) three inputs of row t-1.
  void compute(int g, int t, int x, long iters) {
    std::uint64_t v = (std::uint64_t(g) << 48) ^ (std::uint64_t(t) << 24) ^ std::uint64_t(x);
    if (t > 0) {
      const int lo = std::max(x - 1, 0), hi = std::min(x + 1, width_ - 1);
      for (int k = lo; k <= hi; ++k) v = v * 31 + at(g, t - 1, k).v;
    }
    at(g, t, x).v = kernel(v, iters);
  }

  // Every point's value in the last rows, folded position by position.
  std::uint64_t checksum() {
    std::uint64_t sum = 0;
    for (int g = 0; g < graphs_; ++g)
      for (int x = 0; x < width_; ++x) sum = sum * 1099511628211ULL + at(g, steps_ - 1, x).v;
    return sum;
  }

  void clear() { std::fill(cells_.begin(), cells_.end(), Cell{}); }

 private:
  int graphs_, steps_, width_;
  std::vector<Cell> cells_;
};

// The points a runtime creates, in creation order; `spawn(g, t, x, lo, hi)`
// creates one task with inputs (g, t-1, lo..hi) (none when t == 0).
template <class Spawn>
void for_each_point(Grid& grid, Spawn&& spawn) {
  const int w = grid.width();
  for (int t = 0; t < grid.steps(); ++t)
    for (int g = 0; g < grid.graphs(); ++g)
      for (int x = 0; x < w; ++x) spawn(g, t, x, std::max(x - 1, 0), std::min(x + 1, w - 1));
}

struct Options {
  int workers = 2;
  int width = 0;  // 0: the worker count
  int graphs = 1;
  long budget = 1L << 25;  // kernel iterations per run: sets the steps
  int min_steps = 16, max_steps = 1000;
  int reps = 3;
  bool check = false;  // also compare with a sequential run
  std::vector<long> iters;
};

// One run of the whole graph on the runtime, waiting for all of it.
using RunFn = void (*)(Grid&, long iters, int workers);

[[noreturn]] inline void usage(const char* why) {
  std::fprintf(stderr,
               "metg: %s\nusage: metg_<runtime> --iters N[,N...] [--workers W] [--width X] "
               "[--graphs G] [--budget I] [--min-steps S] [--max-steps S] [--reps R] [--check]\n",
               why);
  std::exit(2);
}

inline long number(const char* text, long min) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min) usage(("bad number: " + std::string(text)).c_str());
  return v;
}

inline std::vector<long> number_list(const char* text) {
  std::vector<long> out;
  for (const char* p = text; *p;) {
    const char* comma = std::strchr(p, ',');
    const std::string item = comma ? std::string(p, comma) : std::string(p);
    out.push_back(number(item.c_str(), 0));
    p = comma ? comma + 1 : p + item.size();
  }
  return out;
}

// One `--name value` option; false when the name is not an option.
inline bool set_option(Options& o, const std::string& name, const char* value) {
  struct IntOption {
    const char* name;
    int Options::*field;
  };
  static constexpr IntOption ints[] = {
      {"--workers", &Options::workers},     {"--width", &Options::width},
      {"--graphs", &Options::graphs},       {"--min-steps", &Options::min_steps},
      {"--max-steps", &Options::max_steps}, {"--reps", &Options::reps}};
  for (const IntOption& f : ints) {
    if (name != f.name) continue;
    o.*f.field = static_cast<int>(number(value, 1));
    return true;
  }
  if (name == "--budget") o.budget = number(value, 1);
  if (name == "--iters") o.iters = number_list(value);
  return name == "--budget" || name == "--iters";
}

inline Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check") {
      o.check = true;
      continue;
    }
    if (i + 1 >= argc) usage(("missing value after " + a).c_str());
    if (!set_option(o, a, argv[++i])) usage(("unknown option " + a).c_str());
  }
  if (o.iters.empty()) usage("--iters is required");
  if (o.min_steps > o.max_steps) usage("--min-steps above --max-steps");
  if (o.width == 0) o.width = o.workers;
  return o;
}

// Steps for a kernel size: the budget of kernel iterations, within the bounds.
inline int steps_for(const Options& o, long iters) {
  const long per_row = std::max(1L, iters) * o.width * o.graphs;
  return static_cast<int>(std::clamp(o.budget / per_row, long{o.min_steps}, long{o.max_steps}));
}

inline double seconds_of(Grid& grid, long iters, int workers, RunFn run) {
  grid.clear();
  const auto t0 = std::chrono::steady_clock::now();
  run(grid, iters, workers);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The sweep: one line per kernel size (the median of the reps); 1 when a
// rep's checksum differs from the first rep's or, with --check, from a
// sequential run's.
inline int sweep(const char* runtime, const Options& o, RunFn run) {
  int status = 0;
  for (const long iters : o.iters) {
    Grid grid(o.graphs, steps_for(o, iters), o.width);
    std::vector<double> secs;
    std::uint64_t sum = 0;
    for (int r = 0; r < o.reps; ++r) {
      secs.push_back(seconds_of(grid, iters, o.workers, run));
      const std::uint64_t s = grid.checksum();
      if (r > 0 && s != sum) {
        std::fprintf(stderr, "metg %s: iters %ld: rep %d checksum %016llx, rep 0 %016llx\n",
                     runtime, iters, r, static_cast<unsigned long long>(s),
                     static_cast<unsigned long long>(sum));
        status = 1;
      }
      sum = s;
    }
    if (o.check) {
      grid.clear();
      for_each_point(grid, [&](int g, int t, int x, int, int) { grid.compute(g, t, x, iters); });
      const bool ok = grid.checksum() == sum;
      std::printf("check runtime=%s iters=%ld %s\n", runtime, iters, ok ? "ok" : "WRONG");
      status |= ok ? 0 : 1;
    }
    std::sort(secs.begin(), secs.end());
    std::printf(
        "metg runtime=%s workers=%d graphs=%d width=%d steps=%d iters=%ld tasks=%ld "
        "wall_s=%.6g checksum=%016llx\n",
        runtime, o.workers, o.graphs, o.width, grid.steps(), iters, grid.tasks(),
        secs[secs.size() / 2], static_cast<unsigned long long>(sum));
    std::fflush(stdout);
  }
  return status;
}

}  // namespace metg
