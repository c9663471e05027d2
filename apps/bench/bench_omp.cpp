// The workloads of workloads.hpp with OpenMP tasks and `depend`.
// Compiled twice: g++ -fopenmp (libgomp) and clang++ -fopenmp (LLVM libomp).
// The benchmark loop runs inside `parallel` + `single`, so the team stays up
// for the whole benchmark and only task creation, dependency handling,
// scheduling and taskwait are timed.
#include <omp.h>

#include <cstdint>
#include <vector>

#include "workloads.hpp"

namespace {

// Runs loop() (the benchmark loop; returns its iterations) on one thread of
// a team of `workers` threads; the others execute tasks at the single's
// barrier.
template <class L>
long in_team_run(benchmark::State& st, L&& loop) {
  const int workers = static_cast<int>(st.range(0));
  omp_set_num_threads(workers);
  int team = 0;
  long iterations = 0;
#pragma omp parallel num_threads(workers)
#pragma omp single
  {
    team = omp_get_num_threads();
    iterations = loop();
  }
  if (team != workers) st.SkipWithError("OpenMP team smaller than requested");
  return iterations;
}

// Runs body(iteration) as the benchmark loop in a team (in_team_run).
// Returns the number of iterations run.
template <class F>
long in_team(benchmark::State& st, long tasks, F&& body) {
  return in_team_run(st, [&] { return bench::timed_loop(st, tasks, body); });
}

void independent_iteration() {
  for (int i = 0; i < bench::kIndependentTasks; ++i) {
#pragma omp task
    bench::empty_body();
  }
#pragma omp taskwait
}

void chain_iteration(std::uint64_t* x) {
  for (int i = 0; i < bench::kChainTasks; ++i) {
#pragma omp task depend(inout : x[0])
    ++x[0];
  }
#pragma omp taskwait
}

template <class T>
void wavefront_iteration(T* g) {
  constexpr int s = bench::WaveGrid<T>::stride;
  for (int i = 1; i <= bench::WaveGrid<T>::side; ++i) {
    for (int j = 1; j <= bench::WaveGrid<T>::side; ++j) {
#pragma omp task depend(in : g[i * s + j - 1], g[(i - 1) * s + j]) depend(inout : g[i * s + j])
      bench::wave_body(g, i, j);
    }
  }
#pragma omp taskwait
}

void fan_iteration(std::uint64_t* x, std::uint64_t* leaves) {
  for (int r = 0; r < bench::kFanRounds; ++r) {
#pragma omp task depend(inout : x[0])
    bench::fan_writer(x, leaves);
    for (int k = 0; k < bench::kFanWidth; ++k) {
#pragma omp task depend(in : x[0])
      bench::fan_reader(x, leaves, k);
    }
  }
#pragma omp taskwait
}

void rounds_iteration() {
  for (int r = 0; r < bench::kRounds; ++r) {
    for (int t = 0; t < bench::kRoundTasks; ++t) {
#pragma omp task
      bench::busy_body(bench::kRoundTaskUs);
    }
#pragma omp taskwait
  }
}

void busychain_iteration(std::uint64_t* x) {
  for (int i = 0; i < bench::kBusyChainTasks; ++i) {
#pragma omp task depend(inout : x[0])
    {
      bench::busy_body(bench::kBusyChainTaskUs);
      ++x[0];
    }
  }
#pragma omp taskwait
}

void bm_independent(benchmark::State& st) {
  in_team(st, bench::kIndependentTasks, [](long) { independent_iteration(); });
}

void bm_chain(benchmark::State& st) {
  std::uint64_t x = 0;
  long iterations = in_team(st, bench::kChainTasks, [&](long) { chain_iteration(&x); });
  if (x != static_cast<std::uint64_t>(iterations) * bench::kChainTasks) {
    st.SkipWithError("chain: wrong result");
  }
}

template <class T>
void bm_wavefront(benchmark::State& st) {
  std::vector<T> grid(bench::WaveGrid<T>::cells);
  bool ok = true;
  in_team(st, bench::WaveGrid<T>::tasks, [&](long it) {
    bench::wave_reset(grid.data(), static_cast<std::uint64_t>(it));
    wavefront_iteration(grid.data());
    ok = ok && bench::wave_check(grid.data(), static_cast<std::uint64_t>(it));
  });
  if (!ok) st.SkipWithError("wavefront: wrong result");
}

void bm_fan(benchmark::State& st) {
  std::uint64_t x = 0;
  std::vector<std::uint64_t> leaves(bench::kFanWidth, 0);
  long iterations = in_team(st, bench::kFanTasks, [&](long) { fan_iteration(&x, leaves.data()); });
  if (x != bench::fan_expected(iterations * bench::kFanRounds))
    st.SkipWithError("fan: wrong result");
}

void bm_rounds(benchmark::State& st) {
  in_team(st, bench::kRoundsTasks, [](long) { rounds_iteration(); });
  bench::report_ideal(st, bench::kRoundsTasks,
                      bench::rounds_ideal_ns(static_cast<int>(st.range(0))));
}

void bm_busychain(benchmark::State& st) {
  std::uint64_t x = 0;
  long iterations = in_team(st, bench::kBusyChainTasks, [&](long) { busychain_iteration(&x); });
  if (x != static_cast<std::uint64_t>(iterations) * bench::kBusyChainTasks) {
    st.SkipWithError("busychain: wrong result");
  }
  bench::report_ideal(st, bench::kBusyChainTasks, bench::busychain_ideal_ns());
}

void bm_producer(benchmark::State& st) {
  in_team_run(st, [&] {
    return bench::producer_loop(
        st,
        [](int) {
#pragma omp task
          bench::busy_body(bench::kProducerTaskUs);
        },
        [] {
#pragma omp taskwait
        });
  });
}

}  // namespace

int main(int argc, char** argv) {
  bench::register_workloads("", {.independent = bm_independent,
                                 .chain = bm_chain,
                                 .wavefront = bm_wavefront<bench::Cell>,
                                 .wavefront8 = bm_wavefront<bench::Cell8>,
                                 .fan = bm_fan,
                                 .rounds = bm_rounds,
                                 .busychain = bm_busychain,
                                 .producer = bm_producer});
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("openmp_runtime",
#if defined(__clang__)
                              "libomp (clang)"
#else
                              "libgomp (gcc)"
#endif
  );
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
