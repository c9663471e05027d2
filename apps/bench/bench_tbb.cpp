// The workloads of workloads.hpp with oneTBB, run inside a task_arena of
// `workers` slots (the benchmark thread plus workers - 1 TBB workers).
//   independent  task_group::run x N, then wait;
//   chain        flow::graph of continue_nodes linked in a line;
//   wavefront    flow::graph of continue_nodes, edges from left and top
//                (wavefront8: the same graph, its bodies on 8-byte cells);
//   fan          task_group: per round one writer task that runs the
//                kFanWidth readers into the same group; wait() is the fan-in;
//   rounds       one task_group per round, its kRoundTasks tasks run, then wait;
//   busychain    a flow::graph line of continue_nodes, as chain;
//   producer     one task_group, every task run on it, then one wait.
// The graphs are built, run and destroyed inside each timed iteration, as the
// other runtimes discover their dependencies per iteration. The *_prebuilt
// variants build the graph once and only run it per iteration (TBB's best
// case for a static graph; reported for information, not for the ratios).
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "workloads.hpp"

namespace {

namespace flow = oneapi::tbb::flow;
using Node = flow::continue_node<flow::continue_msg>;

// A task_arena of `workers` slots that really gets them. TBB never runs more
// threads than its max_allowed_parallelism, by default the CPU count, whatever
// the arena asks for; with more workers than CPUs a global_control raises that
// limit while the arena lives, so the oversubscribed rows are what they say.
class Arena {
 public:
  explicit Arena(int workers) {
    if (workers > oneapi::tbb::info::default_concurrency()) {
      allow_.emplace(oneapi::tbb::global_control::max_allowed_parallelism,
                     static_cast<std::size_t>(workers));
    }
    arena_.emplace(workers);
  }
  template <class F>
  void execute(F&& f) {
    arena_->execute(std::forward<F>(f));
  }

 private:
  std::optional<oneapi::tbb::global_control> allow_;  // outlives the arena
  std::optional<oneapi::tbb::task_arena> arena_;
};

template <class F>
long in_arena(benchmark::State& st, long tasks, F&& body) {
  Arena arena(static_cast<int>(st.range(0)));
  long iterations = 0;
  arena.execute([&] { iterations = bench::timed_loop(st, tasks, body); });
  return iterations;
}

// A line of `count` nodes each calling body(); the caller puts a message into
// the front.
template <class F>
void build_line(flow::graph& g, std::deque<Node>& nodes, int count, F body) {
  for (int i = 0; i < count; ++i) {
    nodes.emplace_back(g, [body](const flow::continue_msg&) { body(); });
    if (i > 0) flow::make_edge(nodes[i - 1], nodes[i]);
  }
}

// Nodes of a chain incrementing *x.
void build_chain(flow::graph& g, std::deque<Node>& nodes, std::uint64_t* x) {
  build_line(g, nodes, bench::kChainTasks, [x] { ++*x; });
}

// Node (i,j) is nodes[(i-1) * side + (j-1)]; the caller starts nodes.front().
template <class T>
void build_wavefront(flow::graph& g, std::deque<Node>& nodes, T* grid) {
  constexpr int side = bench::WaveGrid<T>::side;
  for (int i = 1; i <= side; ++i) {
    for (int j = 1; j <= side; ++j) {
      nodes.emplace_back(g,
                         [grid, i, j](const flow::continue_msg&) { bench::wave_body(grid, i, j); });
      Node& self = nodes.back();
      if (j > 1) flow::make_edge(nodes[(i - 1) * side + (j - 2)], self);
      if (i > 1) flow::make_edge(nodes[(i - 2) * side + (j - 1)], self);
    }
  }
}

void run_graph(flow::graph& g, Node& first) {
  first.try_put(flow::continue_msg());
  g.wait_for_all();
}

void bm_independent(benchmark::State& st) {
  in_arena(st, bench::kIndependentTasks, [](long) {
    oneapi::tbb::task_group tg;
    for (int i = 0; i < bench::kIndependentTasks; ++i) tg.run([] { bench::empty_body(); });
    tg.wait();
  });
}

void bm_chain(benchmark::State& st) {
  std::uint64_t x = 0;
  long iterations = in_arena(st, bench::kChainTasks, [&](long) {
    flow::graph g;
    std::deque<Node> nodes;
    build_chain(g, nodes, &x);
    run_graph(g, nodes.front());
  });
  if (x != static_cast<std::uint64_t>(iterations) * bench::kChainTasks) {
    st.SkipWithError("chain: wrong result");
  }
}

template <class T>
void bm_wavefront(benchmark::State& st) {
  std::vector<T> grid(bench::WaveGrid<T>::cells);
  bool ok = true;
  in_arena(st, bench::WaveGrid<T>::tasks, [&](long it) {
    bench::wave_reset(grid.data(), static_cast<std::uint64_t>(it));
    flow::graph g;
    std::deque<Node> nodes;
    build_wavefront(g, nodes, grid.data());
    run_graph(g, nodes.front());
    ok = ok && bench::wave_check(grid.data(), static_cast<std::uint64_t>(it));
  });
  if (!ok) st.SkipWithError("wavefront: wrong result");
}

void bm_fan(benchmark::State& st) {
  std::uint64_t x = 0;
  std::vector<std::uint64_t> leaves(bench::kFanWidth, 0);
  std::uint64_t* px = &x;
  std::uint64_t* pl = leaves.data();
  long iterations = in_arena(st, bench::kFanTasks, [&](long) {
    oneapi::tbb::task_group tg;
    for (int r = 0; r < bench::kFanRounds; ++r) {
      tg.run([&tg, px, pl] {
        bench::fan_writer(px, pl);
        for (int k = 0; k < bench::kFanWidth; ++k)
          tg.run([px, pl, k] { bench::fan_reader(px, pl, k); });
      });
      tg.wait();
    }
  });
  if (x != bench::fan_expected(iterations * bench::kFanRounds))
    st.SkipWithError("fan: wrong result");
}

void bm_rounds(benchmark::State& st) {
  in_arena(st, bench::kRoundsTasks, [](long) {
    for (int r = 0; r < bench::kRounds; ++r) {
      oneapi::tbb::task_group tg;
      for (int t = 0; t < bench::kRoundTasks; ++t) {
        tg.run([] { bench::busy_body(bench::kRoundTaskUs); });
      }
      tg.wait();
    }
  });
  bench::report_ideal(st, bench::kRoundsTasks,
                      bench::rounds_ideal_ns(static_cast<int>(st.range(0))));
}

void bm_busychain(benchmark::State& st) {
  std::uint64_t x = 0;
  std::uint64_t* px = &x;
  long iterations = in_arena(st, bench::kBusyChainTasks, [px](long) {
    flow::graph g;
    std::deque<Node> nodes;
    build_line(g, nodes, bench::kBusyChainTasks, [px] {
      bench::busy_body(bench::kBusyChainTaskUs);
      ++*px;
    });
    run_graph(g, nodes.front());
  });
  if (x != static_cast<std::uint64_t>(iterations) * bench::kBusyChainTasks) {
    st.SkipWithError("busychain: wrong result");
  }
  bench::report_ideal(st, bench::kBusyChainTasks, bench::busychain_ideal_ns());
}

// ---- prebuilt graphs (informational) ------------------------------------

void bm_chain_prebuilt(benchmark::State& st) {
  std::uint64_t x = 0;
  Arena arena(static_cast<int>(st.range(0)));
  long iterations = 0;
  arena.execute([&] {
    flow::graph g;
    std::deque<Node> nodes;
    build_chain(g, nodes, &x);
    iterations =
        bench::timed_loop(st, bench::kChainTasks, [&](long) { run_graph(g, nodes.front()); });
  });
  if (x != static_cast<std::uint64_t>(iterations) * bench::kChainTasks) {
    st.SkipWithError("chain: wrong result");
  }
}

template <class T>
void bm_wavefront_prebuilt(benchmark::State& st) {
  std::vector<T> grid(bench::WaveGrid<T>::cells);
  bool ok = true;
  Arena arena(static_cast<int>(st.range(0)));
  arena.execute([&] {
    flow::graph g;
    std::deque<Node> nodes;
    build_wavefront(g, nodes, grid.data());
    bench::timed_loop(st, bench::WaveGrid<T>::tasks, [&](long it) {
      bench::wave_reset(grid.data(), static_cast<std::uint64_t>(it));
      run_graph(g, nodes.front());
      ok = ok && bench::wave_check(grid.data(), static_cast<std::uint64_t>(it));
    });
  });
  if (!ok) st.SkipWithError("wavefront: wrong result");
}

void bm_producer(benchmark::State& st) {
  Arena arena(static_cast<int>(st.range(0)));
  arena.execute([&] {
    oneapi::tbb::task_group tg;
    bench::producer_loop(
        st, [&](int) { tg.run([] { bench::busy_body(bench::kProducerTaskUs); }); },
        [&] { tg.wait(); });
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
  bench::register_workloads("prebuilt_", {.independent = nullptr,
                                          .chain = bm_chain_prebuilt,
                                          .wavefront = bm_wavefront_prebuilt<bench::Cell>,
                                          .wavefront8 = bm_wavefront_prebuilt<bench::Cell8>,
                                          .fan = nullptr});
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
