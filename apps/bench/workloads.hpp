// The four runtime-core micro-benchmark workloads, shared by every runtime
// (joule, OpenMP with libgomp and libomp, oneTBB) so each does identical work.
//
// One benchmark iteration creates a whole task graph and waits for it:
//   independent  kIndependentTasks empty tasks, no dependencies;
//   chain        kChainTasks tasks, each inout on one object (a serial chain);
//   wavefront    kWaveSide x kWaveSide blocks, block (i,j) in from its left and
//                top neighbour and inout on itself;
//   fan          kFanRounds rounds of one writer (inout x) followed by
//                kFanWidth readers (in x); the next round's writer waits for
//                all readers (fan-in through the anti-dependency on x).
// The reported counter "ns_per_task" is wall time / (iterations x tasks).
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

inline constexpr int kIndependentTasks = 10000;
inline constexpr int kChainTasks = 10000;
inline constexpr int kWaveSide = 100;
inline constexpr int kFanWidth = 127;
inline constexpr int kFanRounds = 80;
inline constexpr int kMaxWorkers = 2;

inline constexpr long kWaveTasks = long{kWaveSide} * kWaveSide;
inline constexpr long kFanTasks = long{kFanRounds} * (kFanWidth + 1);

// Body of an "empty" task: an empty compiler barrier, so no compiler can
// elide the task (g++ drops `#pragma omp task {}` with an empty body).
inline void empty_body() { benchmark::ClobberMemory(); }

// Padded so that neighbouring blocks never share a cache line.
struct alignas(64) Cell {
  std::uint64_t v = 0;
};

// The wavefront grid has one extra row and column (index 0) of boundary cells
// that tasks only read, so every task has exactly two `in` and one `inout`.
inline constexpr int kWaveStride = kWaveSide + 1;
inline int wave_index(int i, int j) { return i * kWaveStride + j; }

// Body of wavefront block (i,j), 1-based.
inline void wave_body(Cell* grid, int i, int j) {
  grid[wave_index(i, j)].v =
      std::max(grid[wave_index(i, j - 1)].v, grid[wave_index(i - 1, j)].v) + 1;
}

// Sets the boundary to the iteration stamp g: the corner then must read
// g + 2 * kWaveSide - 1, which a missed dependency would very likely break.
inline void wave_reset(Cell* grid, std::uint64_t g) {
  for (int k = 0; k < kWaveStride; ++k) {
    grid[wave_index(0, k)].v = g;
    grid[wave_index(k, 0)].v = g;
  }
}

inline bool wave_check(const Cell* grid, std::uint64_t g) {
  return grid[wave_index(kWaveSide, kWaveSide)].v == g + 2 * kWaveSide - 1;
}

// Fan bodies (unsigned arithmetic wraps, so any number of rounds is defined).
inline void fan_writer(std::uint64_t* x, const std::uint64_t* leaves) {
  std::uint64_t s = 1;
  for (int k = 0; k < kFanWidth; ++k) s += leaves[k];
  *x = s;
}
inline void fan_reader(const std::uint64_t* x, std::uint64_t* leaves, int k) {
  leaves[k] = *x + static_cast<std::uint64_t>(k);
}

// The value of x after `rounds` rounds run sequentially from zeroed state.
inline std::uint64_t fan_expected(long rounds) {
  std::uint64_t x = 0;
  std::vector<std::uint64_t> leaves(kFanWidth, 0);
  for (long r = 0; r < rounds; ++r) {
    fan_writer(&x, leaves.data());
    for (int k = 0; k < kFanWidth; ++k) fan_reader(&x, leaves.data(), k);
  }
  return x;
}

// Runs the benchmark loop, one call of `iteration` per benchmark iteration,
// and reports ns per task measured on the wall clock.
template <class F>
long timed_loop(benchmark::State& st, long tasks_per_iteration, F&& iteration) {
  long iterations = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : st) {
    iteration(iterations);
    ++iterations;
  }
  auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  if (iterations > 0) {
    st.counters["ns_per_task"] = ns / (static_cast<double>(iterations) * tasks_per_iteration);
    st.counters["tasks"] = static_cast<double>(tasks_per_iteration);
    st.SetItemsProcessed(iterations * tasks_per_iteration);
  }
  return iterations;
}

using BenchFn = void (*)(benchmark::State&);

struct Workloads {
  BenchFn independent;
  BenchFn chain;
  BenchFn wavefront;
  BenchFn fan;
};

// Registers "<workload>/workers:<w>" for w = 1..kMaxWorkers, grouped by worker
// count so runtimes that keep their threads alive restart them only once per
// count. A null entry is a workload this runtime does not provide.
inline void register_workloads(const std::string& prefix, const Workloads& w) {
  const std::pair<const char*, BenchFn> all[] = {
      {"independent", w.independent}, {"chain", w.chain}, {"wavefront", w.wavefront},
      {"fan", w.fan}};
  for (int workers = 1; workers <= kMaxWorkers; ++workers) {
    for (const auto& [name, fn] : all) {
      if (fn == nullptr) continue;
      benchmark::RegisterBenchmark((prefix + name).c_str(), fn)
          ->ArgName("workers")
          ->Arg(workers)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace bench
