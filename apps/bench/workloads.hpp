// The runtime-core micro-benchmark workloads, shared by every runtime
// (joule, OpenMP with libgomp and libomp, oneTBB, StarPU) so each does
// identical work.
//
// One benchmark iteration creates a whole task graph and waits for it:
//   independent  kIndependentTasks empty tasks, no dependencies;
//   chain        kChainTasks tasks, each inout on one object (a serial chain);
//   wavefront    kWaveSide x kWaveSide blocks, block (i,j) in from its left and
//                top neighbour and inout on itself; one 64-byte Cell per block;
//   wavefront8   the same graph, kWave8Side x kWave8Side blocks on contiguous
//                8-byte cells (one std::vector of double): the reproducer of
//                the dependency index's hash clustering on contiguous keys
//                (at 100 x 100 the old hash did not cluster; at 200 x 200 it
//                did in most launches);
//   fan          kFanRounds rounds of one writer (inout x) followed by
//                kFanWidth readers (in x); the next round's writer waits for
//                all readers (fan-in through the anti-dependency on x).
// The reported counter "ns_per_task" is wall time / (iterations x tasks).
// Worker counts: 1..kMaxWorkers, or the list in BENCH_WORKERS (e.g. "1,2,4,8,16";
// scripts/device-check sets it for larger machines).
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

namespace bench {

inline constexpr int kIndependentTasks = 10000;
inline constexpr int kChainTasks = 10000;
inline constexpr int kWaveSide = 100;
inline constexpr int kWave8Side = 200;
inline constexpr int kFanWidth = 127;
inline constexpr int kFanRounds = 80;
inline constexpr int kMaxWorkers = 2;

inline constexpr long kFanTasks = long{kFanRounds} * (kFanWidth + 1);

// Body of an "empty" task: an empty compiler barrier, so no compiler can
// elide the task (g++ drops `#pragma omp task {}` with an empty body).
inline void empty_body() { benchmark::ClobberMemory(); }

// Padded so that neighbouring blocks never share a cache line.
struct alignas(64) Cell {
  std::uint64_t v = 0;
};

// wavefront8's cell: eight contiguous bytes, eight cells per cache line.
using Cell8 = double;

// The value a wavefront task computes with, for either cell type.
inline std::uint64_t& cell_value(Cell& c) { return c.v; }
inline const std::uint64_t& cell_value(const Cell& c) { return c.v; }
inline double& cell_value(Cell8& c) { return c; }
inline const double& cell_value(const Cell8& c) { return c; }

// The shape of a wavefront grid of T cells. It has one extra row and column
// (index 0) of boundary cells that tasks only read, so every task has exactly
// two `in` and one `inout`.
template <class T>
struct WaveGrid {
  static constexpr int side = std::is_same_v<T, Cell8> ? kWave8Side : kWaveSide;
  static constexpr int stride = side + 1;
  static constexpr int cells = stride * stride;
  static constexpr long tasks = long{side} * side;
  static int index(int i, int j) { return i * stride + j; }
};

// What a wavefront task does to its three cells. Values stay below 2^53, so
// double cells count exactly like integer ones.
template <class T>
void wave_update(const T& left, const T& top, T& self) {
  cell_value(self) = std::max(cell_value(left), cell_value(top)) + 1;
}

// Body of wavefront block (i,j), 1-based.
template <class T>
void wave_body(T* grid, int i, int j) {
  using W = WaveGrid<T>;
  wave_update(grid[W::index(i, j - 1)], grid[W::index(i - 1, j)], grid[W::index(i, j)]);
}

// Sets the boundary to the iteration stamp g: the corner then must read
// g + 2 * side - 1, which a missed dependency would very likely break.
template <class T>
void wave_reset(T* grid, std::uint64_t g) {
  using W = WaveGrid<T>;
  using V = std::remove_cvref_t<decltype(cell_value(*grid))>;
  for (int k = 0; k < W::stride; ++k) {
    cell_value(grid[W::index(0, k)]) = static_cast<V>(g);
    cell_value(grid[W::index(k, 0)]) = static_cast<V>(g);
  }
}

template <class T>
bool wave_check(const T* grid, std::uint64_t g) {
  using W = WaveGrid<T>;
  using V = std::remove_cvref_t<decltype(cell_value(*grid))>;
  return cell_value(grid[W::index(W::side, W::side)]) == static_cast<V>(g + 2 * W::side - 1);
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
  BenchFn wavefront8;
  BenchFn fan;
};

// The worker counts to register: BENCH_WORKERS ("1,2,4", positive numbers
// separated by commas) when set, else 1..kMaxWorkers. Not a JOULE_* name:
// joule rejects JOULE_* variables it does not know. A malformed list exits,
// so that a typo cannot silently measure the defaults instead.
inline std::vector<int> worker_counts() {
  std::vector<int> counts;
  const char* list = std::getenv("BENCH_WORKERS");
  if (list == nullptr || *list == '\0') {
    for (int w = 1; w <= kMaxWorkers; ++w) counts.push_back(w);
    return counts;
  }
  for (const char* p = list; *p != '\0';) {
    char* end = nullptr;
    const long w = std::strtol(p, &end, 10);
    if (end == p || w < 1 || w > 4096 || (*end != ',' && *end != '\0')) {
      std::fprintf(stderr, "BENCH_WORKERS: expected counts like 1,2,4, got '%s'\n", list);
      std::exit(2);
    }
    counts.push_back(static_cast<int>(w));
    p = *end == ',' ? end + 1 : end;
  }
  return counts;
}

// Registers "<workload>/workers:<w>" for every count of worker_counts(), grouped
// by worker count so runtimes that keep their threads alive restart them only
// once per count. A null entry is a workload this runtime does not provide.
inline void register_workloads(const std::string& prefix, const Workloads& w) {
  const std::pair<const char*, BenchFn> all[] = {{"independent", w.independent},
                                                 {"chain", w.chain},
                                                 {"wavefront", w.wavefront},
                                                 {"wavefront8", w.wavefront8},
                                                 {"fan", w.fan}};
  for (int workers : worker_counts()) {
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
