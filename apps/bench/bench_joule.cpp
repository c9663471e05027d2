// The four workloads of workloads.hpp on joule (C++ API: spawn with
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

using bench::Cell;

class RuntimeHolder {
 public:
  void ensure(int workers) {
    if (rt_ && workers_ == workers) return;
    rt_.reset();  // the previous runtime must be gone before the next starts
    rt_ = std::make_unique<joule::runtime>(
        std::initializer_list<std::pair<std::string, std::string>>{
            {"JOULE_WORKERS", std::to_string(workers)}});
    workers_ = workers;
  }
  void reset() { rt_.reset(); }

 private:
  std::unique_ptr<joule::runtime> rt_;
  int workers_ = -1;
};

RuntimeHolder holder;

template <class F>
long on_joule(benchmark::State& st, long tasks, F&& body) {
  const int workers = static_cast<int>(st.range(0));
  holder.ensure(workers);
  if (joule::num_workers() != workers) {
    st.SkipWithError("joule started a different number of workers");
    return 0;
  }
  return bench::timed_loop(st, tasks, body);
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

void wavefront_iteration(Cell* g) {
  for (int i = 1; i <= bench::kWaveSide; ++i) {
    for (int j = 1; j <= bench::kWaveSide; ++j) {
      joule::spawn({joule::in(g[bench::wave_index(i, j - 1)]),
                    joule::in(g[bench::wave_index(i - 1, j)]),
                    joule::inout(g[bench::wave_index(i, j)])},
                   [g, i, j] { bench::wave_body(g, i, j); });
    }
  }
  joule::taskwait();
}

void bm_wavefront(benchmark::State& st) {
  std::vector<Cell> grid(bench::kWaveStride * bench::kWaveStride);
  bool ok = true;
  on_joule(st, bench::kWaveTasks, [&](long it) {
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
  long iterations =
      on_joule(st, bench::kFanTasks, [&](long) { fan_iteration(&x, leaves.data()); });
  if (x != bench::fan_expected(iterations * bench::kFanRounds)) st.SkipWithError("fan: wrong result");
}

}  // namespace

int main(int argc, char** argv) {
  bench::register_workloads("", {bm_independent, bm_chain, bm_wavefront, bm_fan});
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  holder.reset();
  benchmark::Shutdown();
  return 0;
}
