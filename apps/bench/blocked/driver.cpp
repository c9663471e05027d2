#include "driver.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <string_view>

namespace blocked {
namespace {

struct Options {
  App app = App::lu;
  std::size_t n = 2048;
  std::size_t bs = 128;
  int reps = 3;
  int warmup = 0;
  int workers = 2;
  bool check = false;
  bool cpu_clock = false;
  std::string order_trace;
};

// The compiler that built this translation unit, hence the kernels beside it.
std::string compiler_name() {
#if defined(__clang__)
  return "clang-" + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__);
#elif defined(__GNUC__)
  return "gcc-" + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__);
#else
  return "unknown";
#endif
}

[[noreturn]] void usage_error(const char* prog, const std::string& why) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s [--app lu|cholesky] [--n N] [--bs B] [--reps R] [--warmup W]"
               " [--workers T] [--check] [--cpu-clock] [--order-trace FILE]\n",
               prog, why.c_str(), prog);
  std::exit(2);
}

long parse_number(const char* prog, std::string_view key, const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 0) usage_error(prog, "bad value for " + std::string(key));
  return v;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view key = argv[i];
    if (key == "--check" || key == "--cpu-clock") {
      (key == "--check" ? o.check : o.cpu_clock) = true;
      continue;
    }
    if (i + 1 >= argc) usage_error(argv[0], "missing value after " + std::string(key));
    const char* value = argv[++i];
    if (key == "--app") {
      if (!parse_app(value, &o.app)) usage_error(argv[0], "unknown app " + std::string(value));
    } else if (key == "--order-trace") {
      o.order_trace = value;
    } else {
      const long v = parse_number(argv[0], key, value);
      if (key == "--n")
        o.n = static_cast<std::size_t>(v);
      else if (key == "--bs")
        o.bs = static_cast<std::size_t>(v);
      else if (key == "--reps")
        o.reps = static_cast<int>(v);
      else if (key == "--warmup")
        o.warmup = static_cast<int>(v);
      else if (key == "--workers")
        o.workers = static_cast<int>(v);
      else
        usage_error(argv[0], "unknown option " + std::string(key));
    }
  }
  if (o.bs == 0 || o.n == 0 || o.n % o.bs != 0) usage_error(argv[0], "n must be a multiple of bs");
  if (o.workers < 1) usage_error(argv[0], "--workers must be at least 1");
  return o;
}

void write_trace(std::ofstream& out, int rep) {
  for (const TraceRecord& r : BodyLedger::trace()) {
    out << rep << ' ' << r.worker << ' ' << r.task.seq << ' ' << kernel_name(r.task.kernel) << ' '
        << r.task.k << ' ' << r.task.row << ' ' << r.task.col << ' ' << r.start_ns << ' '
        << r.body_ns << '\n';
  }
}

// One rep: fresh input, the timed run, the result line (rep < 0: warm-up).
void run_rep(Driver& d, const Options& o, TiledMatrix& m, const std::vector<TaskDesc>& tasks,
             int rep) {
  m.fill(o.app);
  d.prepare(m);
  BodyLedger::begin_rep();
  const auto t0 = std::chrono::steady_clock::now();
  d.run(m, tasks);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double body = BodyLedger::body_seconds();
  d.finish(m);
  if (rep < 0) return;
  std::printf(
      "result runtime=%s compiler=%s app=%s n=%zu bs=%zu workers=%d rep=%d tasks=%zu "
      "wall_s=%.6f body_s=%.6f gflops=%.3f",
      d.runtime(), compiler_name().c_str(), app_name(o.app), o.n, o.bs, o.workers, rep,
      tasks.size(), wall, body, app_flops(o.app, o.n) / wall * 1e-9);
  if (o.cpu_clock) std::printf(" body_cpu_s=%.6f", BodyLedger::body_cpu_seconds());
  std::printf("\n");
  std::fflush(stdout);
}

bool check_result(const Driver& d, const Options& o, const TiledMatrix& m) {
  const double err = m.factor_error(o.app);
  const bool ok = err < 1e-10;
  std::printf("check runtime=%s app=%s n=%zu bs=%zu error=%.3e %s\n", d.runtime(), app_name(o.app),
              o.n, o.bs, err, ok ? "ok" : "FAILED");
  return ok;
}

}  // namespace

int driver_main(int argc, char** argv, Driver& driver) {
  const Options o = parse_options(argc, argv);
  try {
    TiledMatrix m(o.n, o.bs);
    const std::vector<TaskDesc> tasks = build_graph(o.app, m.blocks());
    std::ofstream trace;
    if (!o.order_trace.empty()) {
      trace.open(o.order_trace);
      if (!trace) usage_error(argv[0], "cannot write " + o.order_trace);
      trace << "rep worker seq kernel k row col start_ns body_ns\n";
      BodyLedger::enable_trace(driver.worker_id());
    }
    if (o.cpu_clock) BodyLedger::enable_cpu_clock();
    driver.start(o.workers);
    for (int w = 0; w < o.warmup; ++w) run_rep(driver, o, m, tasks, -1);
    for (int rep = 0; rep < o.reps; ++rep) {
      run_rep(driver, o, m, tasks, rep);
      if (trace.is_open()) write_trace(trace, rep);
    }
    const bool ok = !o.check || o.reps == 0 || check_result(driver, o, m);
    driver.stop();
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
}

}  // namespace blocked
