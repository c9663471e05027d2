// The workloads of workloads.hpp on joule (C++ API: spawn with
// in/inout, taskwait). The runtime is started once per worker count with
// JOULE_WORKERS and otherwise default settings, and kept alive between
// benchmarks of the same count (only one joule::runtime may exist at a time).
#include <joule/joule.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads.hpp"

namespace {

class RuntimeHolder {
 public:
  void ensure(int workers) {
    if (rt_ && workers_ == workers) return;
    rt_.reset();  // the previous runtime must be gone before the next starts
    rt_ =
        std::make_unique<joule::runtime>(std::initializer_list<std::pair<std::string, std::string>>{
            {"JOULE_WORKERS", std::to_string(workers)}});
    workers_ = workers;
  }
  void reset() { rt_.reset(); }

 private:
  std::unique_ptr<joule::runtime> rt_;
  int workers_ = -1;
};

RuntimeHolder holder;

// Starts joule with the benchmark's worker count; false (and the benchmark
// skipped) if it started another.
bool started(benchmark::State& st) {
  const int workers = static_cast<int>(st.range(0));
  holder.ensure(workers);
  if (joule::num_workers() == workers) return true;
  st.SkipWithError("joule started a different number of workers");
  return false;
}

template <class F>
long on_joule(benchmark::State& st, long tasks, F&& body) {
  return started(st) ? bench::timed_loop(st, tasks, body) : 0;
}

void bm_independent(benchmark::State& st) {
  on_joule(st, bench::kIndependentTasks, [](long) {
    for (int i = 0; i < bench::kIndependentTasks; ++i) joule::spawn([] { bench::empty_body(); });
    joule::taskwait();
  });
}

void bm_chain(benchmark::State& st) {
  std::uint64_t x = 0;
  std::uint64_t* px = &x;
  long iterations = on_joule(st, bench::kChainTasks, [px](long) {
    for (int i = 0; i < bench::kChainTasks; ++i) joule::spawn({joule::inout(*px)}, [px] { ++*px; });
    joule::taskwait();
  });
  if (x != static_cast<std::uint64_t>(iterations) * bench::kChainTasks) {
    st.SkipWithError("chain: wrong result");
  }
}

template <class T>
void wavefront_iteration(T* g) {
  using W = bench::WaveGrid<T>;
  for (int i = 1; i <= W::side; ++i) {
    for (int j = 1; j <= W::side; ++j) {
      joule::spawn({joule::in(g[W::index(i, j - 1)]), joule::in(g[W::index(i - 1, j)]),
                    joule::inout(g[W::index(i, j)])},
                   [g, i, j] { bench::wave_body(g, i, j); });
    }
  }
  joule::taskwait();
}

template <class T>
void bm_wavefront(benchmark::State& st) {
  std::vector<T> grid(bench::WaveGrid<T>::cells);
  bool ok = true;
  on_joule(st, bench::WaveGrid<T>::tasks, [&](long it) {
    bench::wave_reset(grid.data(), static_cast<std::uint64_t>(it));
    wavefront_iteration(grid.data());
    ok = ok && bench::wave_check(grid.data(), static_cast<std::uint64_t>(it));
  });
  if (!ok) st.SkipWithError("wavefront: wrong result");
}

void fan_iteration(std::uint64_t* x, std::uint64_t* leaves) {
  for (int r = 0; r < bench::kFanRounds; ++r) {
    joule::spawn({joule::inout(*x)}, [x, leaves] { bench::fan_writer(x, leaves); });
    for (int k = 0; k < bench::kFanWidth; ++k) {
      joule::spawn({joule::in(*x)}, [x, leaves, k] { bench::fan_reader(x, leaves, k); });
    }
  }
  joule::taskwait();
}

void bm_fan(benchmark::State& st) {
  std::uint64_t x = 0;
  std::vector<std::uint64_t> leaves(bench::kFanWidth, 0);
  long iterations = on_joule(st, bench::kFanTasks, [&](long) { fan_iteration(&x, leaves.data()); });
  if (x != bench::fan_expected(iterations * bench::kFanRounds))
    st.SkipWithError("fan: wrong result");
}

void bm_rounds(benchmark::State& st) {
  on_joule(st, bench::kRoundsTasks, [](long) {
    for (int r = 0; r < bench::kRounds; ++r) {
      for (int t = 0; t < bench::kRoundTasks; ++t) {
        joule::spawn([] { bench::busy_body(bench::kRoundTaskUs); });
      }
      joule::taskwait();
    }
  });
  bench::report_ideal(st, bench::kRoundsTasks,
                      bench::rounds_ideal_ns(static_cast<int>(st.range(0))));
}

void bm_busychain(benchmark::State& st) {
  std::uint64_t x = 0;
  std::uint64_t* px = &x;
  long iterations = on_joule(st, bench::kBusyChainTasks, [px](long) {
    for (int i = 0; i < bench::kBusyChainTasks; ++i) {
      joule::spawn({joule::inout(*px)}, [px] {
        bench::busy_body(bench::kBusyChainTaskUs);
        ++*px;
      });
    }
    joule::taskwait();
  });
  if (x != static_cast<std::uint64_t>(iterations) * bench::kBusyChainTasks) {
    st.SkipWithError("busychain: wrong result");
  }
  bench::report_ideal(st, bench::kBusyChainTasks, bench::busychain_ideal_ns());
}

void bm_producer(benchmark::State& st) {
  if (!started(st)) return;
  bench::producer_loop(
      st, [](int) { joule::spawn([] { bench::busy_body(bench::kProducerTaskUs); }); },
      [] { joule::taskwait(); });
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
  benchmark::RunSpecifiedBenchmarks();
  holder.reset();
  benchmark::Shutdown();
  return 0;
}
