// The workloads of workloads.hpp with StarPU (1.3): codelets with one CPU
// function each, data handles registered with starpu_variable_data_register,
// tasks submitted with starpu_task_insert(STARPU_R / STARPU_RW) under the
// default sequential consistency (StarPU infers the dependencies from the
// access modes and submission order), and starpu_task_wait_for_all.
//   independent  codelet without buffers, N tasks;
//   chain        one handle on x, every task STARPU_RW on it;
//   wavefront    one handle per grid cell, STARPU_R left and top, STARPU_RW self
//                (wavefront8: the same on 8-byte cells, one handle per double);
//   fan          one handle on x: the writer STARPU_RW, the readers STARPU_R;
//   rounds       codelet without buffers, kRoundTasks tasks, then wait, per round;
//   busychain    one handle on x, every task STARPU_RW on it;
//   producer     codelet without buffers, all tasks submitted, then one wait.
// StarPU is initialised once per worker count with conf.ncpus = workers and
// no CUDA/OpenCL, and shut down before the next count. Its CPU workers are
// threads of their own: the benchmark thread only submits and waits, it never
// runs tasks (unlike the OpenMP and TBB peers, where it is one of the workers).
#include <starpu.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "workloads.hpp"

namespace {

// ---- StarPU lifetime ------------------------------------------------------

class StarpuHolder {
 public:
  // Returns false (and the reason in *why) when StarPU could not be started
  // with exactly `workers` CPU workers.
  bool ensure(int workers, std::string* why) {
    if (running_ && workers_ == workers) return true;
    reset();
    starpu_conf conf;
    starpu_conf_init(&conf);
    // The benchmark's worker count wins over any STARPU_NCPU in the environment.
    conf.precedence_over_environment_variables = 1;
    conf.ncpus = workers;
    conf.ncuda = 0;
    conf.nopencl = 0;
    conf.nmic = 0;
    conf.nmpi_ms = 0;
    const int rc = starpu_init(&conf);
    if (rc != 0) {
      *why = "starpu_init failed: " + std::to_string(rc);
      return false;
    }
    running_ = true;
    workers_ = workers;
    if (static_cast<int>(starpu_cpu_worker_get_count()) != workers) {
      // StarPU starts at most one CPU worker per CPU. Shut down again, or the
      // next benchmark of this count would run on the smaller set unnoticed.
      *why = "StarPU started " + std::to_string(starpu_cpu_worker_get_count()) +
             " CPU workers, not " + std::to_string(workers);
      reset();
      return false;
    }
    return true;
  }
  void reset() {
    if (running_) starpu_shutdown();
    running_ = false;
    workers_ = -1;
  }

 private:
  bool running_ = false;
  int workers_ = -1;
};

StarpuHolder holder;

// Quiet StarPU and keep its files (perfmodel and bus samples) out of $HOME.
// Variables already set in the environment are left as they are.
std::string prepare_environment() {
  setenv("STARPU_SILENT", "1", 0);
  if (std::getenv("STARPU_HOME") != nullptr) return {};
  std::string dir = (std::filesystem::temp_directory_path() / "bench_starpu.XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) return {};
  setenv("STARPU_HOME", dir.c_str(), 1);
  return dir;
}

// ---- data handles ---------------------------------------------------------

// Handles registered for one benchmark run and unregistered at its end.
// Registration happens once per benchmark, outside the timed loop, so the
// numbers are task submission, dependency and scheduling overhead, not the
// cost of registering data (which the other runtimes do not have).
class Handles {
 public:
  starpu_data_handle_t add(void* ptr, std::size_t size) {
    starpu_data_handle_t h = nullptr;
    starpu_variable_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(ptr), size);
    handles_.push_back(h);
    return h;
  }
  const starpu_data_handle_t& operator[](std::size_t i) const { return handles_[i]; }
  Handles() = default;
  Handles(const Handles&) = delete;
  Handles& operator=(const Handles&) = delete;
  ~Handles() {
    for (starpu_data_handle_t h : handles_) starpu_data_unregister(h);
  }

 private:
  std::vector<starpu_data_handle_t> handles_;
};

// With CPU workers only, StarPU never copies a handle's data: the one copy is
// the registered buffer in main RAM. So after starpu_task_wait_for_all the
// benchmark thread may read and write the objects directly (the wavefront's
// reset and check), as every other peer does, without acquiring 10 201
// handles per iteration.

// ---- codelets -------------------------------------------------------------

template <class T>
T* buffer_ptr(void* buffer) {
  return reinterpret_cast<T*>(STARPU_VARIABLE_GET_PTR(buffer));
}

void empty_cpu(void* /*buffers*/[], void* /*cl_arg*/) { bench::empty_body(); }

void increment_cpu(void* buffers[], void* /*cl_arg*/) { ++*buffer_ptr<std::uint64_t>(buffers[0]); }

void round_task_cpu(void* /*buffers*/[], void* /*cl_arg*/) {
  bench::busy_body(bench::kRoundTaskUs);
}
void producer_task_cpu(void** /*buffers*/, void* /*cl_arg*/) {
  bench::busy_body(bench::kProducerTaskUs);
}

void busy_increment_cpu(void* buffers[], void* /*cl_arg*/) {
  bench::busy_body(bench::kBusyChainTaskUs);
  ++*buffer_ptr<std::uint64_t>(buffers[0]);
}

// Same computation as bench::wave_body, on the three cells the task was given.
template <class T>
void wave_cpu(void* buffers[], void* /*cl_arg*/) {
  bench::wave_update(*buffer_ptr<T>(buffers[0]), *buffer_ptr<T>(buffers[1]),
                     *buffer_ptr<T>(buffers[2]));
}

// The leaves have no handles, as in the other peers: their accesses are
// ordered through x alone. cl_arg points at memory owned by the benchmark.
struct FanArg {
  std::uint64_t* leaves;
  int k;
};

void fan_writer_cpu(void* buffers[], void* cl_arg) {
  bench::fan_writer(buffer_ptr<std::uint64_t>(buffers[0]), static_cast<FanArg*>(cl_arg)->leaves);
}

void fan_reader_cpu(void* buffers[], void* cl_arg) {
  const auto* arg = static_cast<FanArg*>(cl_arg);
  bench::fan_reader(buffer_ptr<std::uint64_t>(buffers[0]), arg->leaves, arg->k);
}

starpu_codelet make_codelet(const char* name, starpu_cpu_func_t f,
                            std::initializer_list<starpu_data_access_mode> modes) {
  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.name = name;
  cl.where = STARPU_CPU;
  cl.cpu_funcs[0] = f;
  cl.nbuffers = static_cast<int>(modes.size());
  int i = 0;
  for (starpu_data_access_mode m : modes) cl.modes[i++] = m;
  return cl;
}

// Tasks keep a pointer to their codelet, so the codelets live for the program.
starpu_codelet empty_cl = make_codelet("empty", empty_cpu, {});
starpu_codelet increment_cl = make_codelet("increment", increment_cpu, {STARPU_RW});
template <class T>
starpu_codelet wave_cl = make_codelet("wave", wave_cpu<T>, {STARPU_R, STARPU_R, STARPU_RW});
starpu_codelet fan_writer_cl = make_codelet("fan_writer", fan_writer_cpu, {STARPU_RW});
starpu_codelet fan_reader_cl = make_codelet("fan_reader", fan_reader_cpu, {STARPU_R});
starpu_codelet round_task_cl = make_codelet("round_task", round_task_cpu, {});
starpu_codelet producer_task_cl = make_codelet("producer_task", producer_task_cpu, {});
starpu_codelet busy_increment_cl = make_codelet("busy_increment", busy_increment_cpu, {STARPU_RW});

// ---- workloads ------------------------------------------------------------

// Starts StarPU with this benchmark's worker count (before any handle is
// registered); false, with the benchmark marked as an error, if it cannot.
bool starpu_ready(benchmark::State& st) {
  std::string why;
  if (holder.ensure(static_cast<int>(st.range(0)), &why)) return true;
  st.SkipWithError(why.c_str());
  return false;
}

// starpu_task_insert returns -ENODEV when no worker can run the codelet;
// a failed submission must not pass for a fast one.
void insert_or_abort(int rc) {
  if (rc != 0) {
    std::fprintf(stderr, "bench_starpu: starpu_task_insert failed: %d\n", rc);
    std::abort();
  }
}

void bm_independent(benchmark::State& st) {
  if (!starpu_ready(st)) return;
  bench::timed_loop(st, bench::kIndependentTasks, [](long) {
    for (int i = 0; i < bench::kIndependentTasks; ++i) {
      insert_or_abort(starpu_task_insert(&empty_cl, 0));
    }
    starpu_task_wait_for_all();
  });
}

void bm_chain(benchmark::State& st) {
  std::uint64_t x = 0;
  long iterations = 0;
  {
    if (!starpu_ready(st)) return;
    Handles h;
    starpu_data_handle_t hx = h.add(&x, sizeof x);
    iterations = bench::timed_loop(st, bench::kChainTasks, [hx](long) {
      for (int i = 0; i < bench::kChainTasks; ++i) {
        insert_or_abort(starpu_task_insert(&increment_cl, STARPU_RW, hx, 0));
      }
      starpu_task_wait_for_all();
    });
  }  // unregistered here, before x is checked
  if (x != static_cast<std::uint64_t>(iterations) * bench::kChainTasks) {
    st.SkipWithError("chain: wrong result");
  }
}

template <class T>
void wavefront_iteration(const Handles& h) {
  using W = bench::WaveGrid<T>;
  for (int i = 1; i <= W::side; ++i) {
    for (int j = 1; j <= W::side; ++j) {
      insert_or_abort(starpu_task_insert(&wave_cl<T>, STARPU_R, h[W::index(i, j - 1)], STARPU_R,
                                         h[W::index(i - 1, j)], STARPU_RW, h[W::index(i, j)], 0));
    }
  }
  starpu_task_wait_for_all();
}

template <class T>
void bm_wavefront(benchmark::State& st) {
  std::vector<T> grid(bench::WaveGrid<T>::cells);
  if (!starpu_ready(st)) return;
  Handles h;
  for (T& c : grid) h.add(&c, sizeof c);  // handle k is grid[k]
  bool ok = true;
  bench::timed_loop(st, bench::WaveGrid<T>::tasks, [&](long it) {
    bench::wave_reset(grid.data(), static_cast<std::uint64_t>(it));
    wavefront_iteration<T>(h);
    ok = ok && bench::wave_check(grid.data(), static_cast<std::uint64_t>(it));
  });
  if (!ok) st.SkipWithError("wavefront: wrong result");
}

void fan_iteration(starpu_data_handle_t hx, std::vector<FanArg>& args) {
  for (int r = 0; r < bench::kFanRounds; ++r) {
    // STARPU_CL_ARGS_NFREE: hand over a pointer to the benchmark's own
    // argument, without the per-task allocation that STARPU_VALUE packs.
    insert_or_abort(starpu_task_insert(&fan_writer_cl, STARPU_RW, hx, STARPU_CL_ARGS_NFREE,
                                       &args[0], sizeof(FanArg), 0));
    for (int k = 0; k < bench::kFanWidth; ++k) {
      insert_or_abort(starpu_task_insert(&fan_reader_cl, STARPU_R, hx, STARPU_CL_ARGS_NFREE,
                                         &args[k], sizeof(FanArg), 0));
    }
  }
  starpu_task_wait_for_all();
}

void bm_fan(benchmark::State& st) {
  std::uint64_t x = 0;
  std::vector<std::uint64_t> leaves(bench::kFanWidth, 0);
  std::vector<FanArg> args;
  for (int k = 0; k < bench::kFanWidth; ++k) args.push_back({leaves.data(), k});
  long iterations = 0;
  {
    if (!starpu_ready(st)) return;
    Handles h;
    starpu_data_handle_t hx = h.add(&x, sizeof x);
    iterations = bench::timed_loop(st, bench::kFanTasks, [&](long) { fan_iteration(hx, args); });
  }  // unregistered here, before x is checked
  if (x != bench::fan_expected(iterations * bench::kFanRounds)) {
    st.SkipWithError("fan: wrong result");
  }
}

void bm_rounds(benchmark::State& st) {
  if (!starpu_ready(st)) return;
  bench::timed_loop(st, bench::kRoundsTasks, [](long) {
    for (int r = 0; r < bench::kRounds; ++r) {
      for (int t = 0; t < bench::kRoundTasks; ++t) {
        insert_or_abort(starpu_task_insert(&round_task_cl, 0));
      }
      starpu_task_wait_for_all();
    }
  });
  bench::report_ideal(st, bench::kRoundsTasks,
                      bench::rounds_ideal_ns(static_cast<int>(st.range(0))));
}

void bm_busychain(benchmark::State& st) {
  std::uint64_t x = 0;
  long iterations = 0;
  {
    if (!starpu_ready(st)) return;
    Handles h;
    starpu_data_handle_t hx = h.add(&x, sizeof x);
    iterations = bench::timed_loop(st, bench::kBusyChainTasks, [hx](long) {
      for (int i = 0; i < bench::kBusyChainTasks; ++i) {
        insert_or_abort(starpu_task_insert(&busy_increment_cl, STARPU_RW, hx, 0));
      }
      starpu_task_wait_for_all();
    });
  }  // unregistered here, before x is checked
  if (x != static_cast<std::uint64_t>(iterations) * bench::kBusyChainTasks) {
    st.SkipWithError("busychain: wrong result");
  }
  bench::report_ideal(st, bench::kBusyChainTasks, bench::busychain_ideal_ns());
}

void bm_producer(benchmark::State& st) {
  if (!starpu_ready(st)) return;
  bench::producer_loop(
      st, [](int) { insert_or_abort(starpu_task_insert(&producer_task_cl, 0)); },
      [] { starpu_task_wait_for_all(); });
}

}  // namespace

int main(int argc, char** argv) {
  const std::string starpu_home = prepare_environment();
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
  int major = 0, minor = 0, release = 0;
  starpu_get_version(&major, &minor, &release);
  benchmark::AddCustomContext(
      "starpu_version",
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release));
  benchmark::RunSpecifiedBenchmarks();
  holder.reset();
  benchmark::Shutdown();
  std::error_code ignored;
  if (!starpu_home.empty()) std::filesystem::remove_all(starpu_home, ignored);
  return 0;
}
