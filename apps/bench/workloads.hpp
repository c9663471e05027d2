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
// Two workloads of tasks that do work, for the cost of more workers than CPUs
// (scripts/bench oversub), where the empty tasks above would measure only the
// runtime's bookkeeping:
//   rounds       kRounds rounds of kRoundTasks independent tasks, each busy for
//                kRoundTaskUs, and a taskwait after every round;
//   busychain    kBusyChainTasks tasks inout on one object, each busy for
//                kBusyChainTaskUs and then incrementing it.
//   producer     kProducerTasks independent tasks of kProducerTaskUs each, all
//                created by one thread before one wait: how fast one creator
//                feeds the workers. Counters created_per_s (the creation loop
//                alone) and completed_per_s (first creation to the end of the
//                wait), against the worker count.
// The reported counter "ns_per_task" is wall time / (iterations x tasks); the
// busy workloads add "ratio_to_ideal", wall time over the time their work needs
// on min(workers, CPUs) CPUs with no runtime cost at all.
// Worker counts: 1..kMaxWorkers, or the list in BENCH_WORKERS (e.g. "1,2,4,8,16";
// scripts/device-check sets it for larger machines); the busy workloads also at
// BENCH_OVERSUB_WORKERS (default kOversubscribedWorkers, 0: none).
#pragma once

#include <benchmark/benchmark.h>

#include <sched.h>

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
inline constexpr int kRounds = 200;
inline constexpr int kRoundTasks = 4;
inline constexpr int kRoundTaskUs = 50;
inline constexpr int kBusyChainTasks = 200;
inline constexpr int kBusyChainTaskUs = 20;
inline constexpr int kProducerTasks = 20000;
inline constexpr int kProducerTaskUs = 2;
// The case: 16 workers on this 2-CPU machine.
inline constexpr int kOversubscribedWorkers = 16;

inline constexpr long kFanTasks = long{kFanRounds} * (kFanWidth + 1);
inline constexpr long kRoundsTasks = long{kRounds} * kRoundTasks;

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

// ---- busy tasks ----------------------------------------------------------

// `n` steps of a serial chain of multiply-adds. The empty asm makes x opaque
// to the optimiser, so neither g++ nor clang++ can vectorise the loop or fold
// it into a formula: a step costs the latency of one multiply and one add on
// every compiler, and a fixed count is fixed work. Work, not a spin until a
// deadline: a task that shares its CPU with another must take longer, or
// oversubscription would cost nothing.
inline std::uint64_t busy_steps(std::uint64_t n) {
  std::uint64_t x = n;
  for (std::uint64_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    asm volatile("" : "+r"(x));
  }
  return x;
}

// Steps per microsecond on this CPU, measured once per process on the steady
// clock: the fastest of many short samples, since a sample can only be slowed
// (by preemption, by another vCPU's load), never sped up. The first call must
// come before any runtime starts its workers (register_workloads makes it), so
// that the process's own threads do not disturb it.
inline double busy_steps_per_us() {
  static const double rate = [] {
    constexpr std::uint64_t kSample = 50000;  // about 50 us
    double best_ns = 1e300;
    for (int k = 0; k < 40; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      benchmark::DoNotOptimize(busy_steps(kSample));
      const auto t1 = std::chrono::steady_clock::now();
      best_ns = std::min(best_ns, std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    return 1000.0 * static_cast<double>(kSample) / best_ns;
  }();
  return rate;
}

// The body of a busy task: about `us` microseconds of work on an idle CPU.
inline void busy_body(int us) {
  const auto steps = static_cast<std::uint64_t>(busy_steps_per_us() * us);
  benchmark::DoNotOptimize(busy_steps(steps));
}

// CPUs this process may run on: the most workers that can run at once. Read
// once, before any runtime starts (register_workloads makes the first call):
// joule pins the thread that starts it to one CPU, which would then read 1.
inline int usable_cpus() {
  static const int cpus = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    return std::max(1, CPU_COUNT(&set));
  }();
  return cpus;
}

// Ideal wall time of one iteration: rounds run one after the other, each taking
// as many task lengths as it needs waves on min(workers, CPUs) CPUs; a chain
// runs one task at a time whatever the workers.
inline double rounds_ideal_ns(int workers) {
  const int parallel = std::min({workers, usable_cpus(), kRoundTasks});
  const int waves = (kRoundTasks + parallel - 1) / parallel;
  return 1000.0 * kRounds * waves * kRoundTaskUs;
}
inline double busychain_ideal_ns() { return 1000.0 * kBusyChainTasks * kBusyChainTaskUs; }
inline double producer_ideal_ns(int workers) {
  const int parallel = std::min(workers, usable_cpus());
  return 1000.0 * kProducerTasks * kProducerTaskUs / parallel;
}

// Adds "ratio_to_ideal" after timed_loop has set "ns_per_task".
inline void report_ideal(benchmark::State& st, long tasks_per_iteration, double ideal_ns) {
  const auto it = st.counters.find("ns_per_task");
  if (it == st.counters.end()) return;
  st.counters["ratio_to_ideal"] = it->second.value * tasks_per_iteration / ideal_ns;
}

// The producer workload's loop: spawn(i) for every task, then wait(); the
// creation loop is timed on its own. Returns the number of iterations run.
template <class Spawn, class Wait>
long producer_loop(benchmark::State& st, Spawn&& spawn, Wait&& wait) {
  double create_ns = 0;
  const long iterations = timed_loop(st, kProducerTasks, [&](long) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kProducerTasks; ++i) spawn(i);
    create_ns +=
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    wait();
  });
  const auto it = st.counters.find("ns_per_task");
  if (iterations > 0 && it != st.counters.end() && create_ns > 0) {
    const double tasks = static_cast<double>(iterations) * kProducerTasks;
    st.counters["created_per_s"] = tasks / (create_ns * 1e-9);
    st.counters["completed_per_s"] = 1e9 / it->second.value;
    st.counters["ratio_to_ideal"] =
        it->second.value * kProducerTasks / producer_ideal_ns(static_cast<int>(st.range(0)));
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
  BenchFn rounds = nullptr;
  BenchFn busychain = nullptr;
  BenchFn producer = nullptr;
};

// Worker counts from the environment variable `name` ("1,2,4", counts of 0..4096
// separated by commas); `fallback` when it is unset or empty. Not JOULE_*
// names: joule rejects JOULE_* variables it does not know. A malformed list
// exits, so that a typo cannot silently measure the defaults instead.
inline std::vector<int> counts_from_env(const char* name, std::vector<int> fallback) {
  const char* list = std::getenv(name);
  if (list == nullptr || *list == '\0') return fallback;
  std::vector<int> counts;
  for (const char* p = list; *p != '\0';) {
    char* end = nullptr;
    const long w = std::strtol(p, &end, 10);
    if (end == p || w < 0 || w > 4096 || (*end != ',' && *end != '\0')) {
      std::fprintf(stderr, "%s: expected counts like 1,2,4, got '%s'\n", name, list);
      std::exit(2);
    }
    counts.push_back(static_cast<int>(w));
    p = *end == ',' ? end + 1 : end;
  }
  return counts;
}

// The worker counts to register: BENCH_WORKERS (positive counts) when set,
// else 1..kMaxWorkers.
inline std::vector<int> worker_counts() {
  std::vector<int> counts;
  for (int w = 1; w <= kMaxWorkers; ++w) counts.push_back(w);
  counts = counts_from_env("BENCH_WORKERS", counts);
  if (std::find(counts.begin(), counts.end(), 0) != counts.end()) {
    std::fprintf(stderr, "BENCH_WORKERS: counts must be at least 1\n");
    std::exit(2);
  }
  return counts;
}

// The busy workloads' counts: worker_counts() and then the oversubscribed ones
// of BENCH_OVERSUB_WORKERS (0: none) not already there.
inline std::vector<int> busy_worker_counts() {
  std::vector<int> counts = worker_counts();
  for (int w : counts_from_env("BENCH_OVERSUB_WORKERS", {kOversubscribedWorkers})) {
    if (w > 0 && std::find(counts.begin(), counts.end(), w) == counts.end()) counts.push_back(w);
  }
  return counts;
}

inline void register_one(const std::string& name, BenchFn fn, int workers) {
  benchmark::RegisterBenchmark(name.c_str(), fn)
      ->ArgName("workers")
      ->Arg(workers)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

// Registers "<workload>/workers:<w>" for every count of worker_counts() (the
// busy workloads: busy_worker_counts()), grouped by worker count so runtimes
// that keep their threads alive restart them only once per count. A null
// entry is a workload this runtime does not provide.
inline void register_workloads(const std::string& prefix, const Workloads& w) {
  const std::pair<const char*, BenchFn> all[] = {{"independent", w.independent},
                                                 {"chain", w.chain},
                                                 {"wavefront", w.wavefront},
                                                 {"wavefront8", w.wavefront8},
                                                 {"fan", w.fan}};
  const std::pair<const char*, BenchFn> busy[] = {
      {"rounds", w.rounds}, {"busychain", w.busychain}, {"producer", w.producer}};
  const std::vector<int> plain = worker_counts();
  for (int workers : busy_worker_counts()) {
    if (std::find(plain.begin(), plain.end(), workers) != plain.end()) {
      for (const auto& [name, fn] : all) {
        if (fn != nullptr) register_one(prefix + name, fn, workers);
      }
    }
    for (const auto& [name, fn] : busy) {
      if (fn != nullptr) register_one(prefix + name, fn, workers);
    }
  }
  if (w.rounds != nullptr || w.busychain != nullptr || w.producer != nullptr) {
    usable_cpus();        // read now, before any runtime pins this thread
    busy_steps_per_us();  // calibrated now, before any runtime has threads
    benchmark::AddCustomContext("busy_steps_per_us", std::to_string(busy_steps_per_us()));
  }
}

}  // namespace bench
