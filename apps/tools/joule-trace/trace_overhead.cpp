// joule-trace-overhead [--workers N] [--tasks N] [--runs N] [--dir DIR]:
// what tracing costs. For each JOULE_TRACE mode (none, paraver, chrome) it
// starts a runtime, spawns empty labelled tasks from the main thread, waits
// for them and stops the runtime; the modes are interleaved run by run so
// that a change in machine load hits all of them, and the medians are
// printed as a Markdown table (docs/observability.md, "Overhead").
#include <CLI/CLI.hpp>
#include <joule/joule.hpp>

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kModes[] = {"none", "paraver", "chrome"};
constexpr int kNumModes = 3;

struct Args {
  int workers = 0;  // 0: one per CPU, as JOULE_WORKERS=0
  long tasks = 200000;
  int runs = 5;
  std::string dir;  // where the run's temporary directory goes ("": the system's)
};

struct Sample {
  double tasks_s = 0;  // spawn + taskwait
  double stop_s = 0;   // runtime stop, which writes the trace
  double file_mb = 0;  // size of the trace files
  int workers = 0;
};

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Sums and removes the regular files in dir (the trace of one run).
double take_files_mb(const fs::path& dir) {
  std::uintmax_t bytes = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    bytes += e.file_size();
    fs::remove(e.path());
  }
  return double(bytes) / 1e6;
}

Sample run_once(const char* mode, const Args& a, const fs::path& dir) {
  const std::initializer_list<std::pair<std::string, std::string>> settings = {
      {"JOULE_TRACE", mode},
      {"JOULE_TRACE_DIR", dir.string()},
      {"JOULE_WORKERS", std::to_string(a.workers)}};
  auto rt = std::make_unique<joule::runtime>(settings);
  Sample s;
  s.workers = joule::num_workers();
  const Clock::time_point t0 = Clock::now();
  for (long i = 0; i < a.tasks; ++i) joule::spawn([] {}, {.label = "empty"});
  joule::taskwait();
  s.tasks_s = seconds_since(t0);
  const Clock::time_point t1 = Clock::now();
  rt.reset();
  s.stop_s = seconds_since(t1);
  s.file_mb = take_files_mb(dir);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void print_table(const Args& a, const std::vector<std::vector<Sample>>& by_mode) {
  std::printf("joule-trace-overhead: %ld empty labelled tasks, median of %d runs per mode\n\n",
              a.tasks, a.runs);
  std::printf("| workers | trace | tasks_s | ns/task | vs none | stop_s | file MB |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  auto field = [&](int mode, double Sample::*f) {
    std::vector<double> v;
    for (const Sample& s : by_mode[std::size_t(mode)]) v.push_back(s.*f);
    return median(v);
  };
  const double none = field(0, &Sample::tasks_s);
  for (int m = 0; m < kNumModes; ++m) {
    const double t = field(m, &Sample::tasks_s);
    std::printf("| %d | %s | %.4f | %.0f | %.2fx | %.3f | %.1f |\n",
                by_mode[std::size_t(m)].front().workers, kModes[m], t, t / double(a.tasks) * 1e9,
                none > 0 ? t / none : 0.0, field(m, &Sample::stop_s), field(m, &Sample::file_mb));
  }
}

// A new directory for the traces, inside --dir or the system's temporary one.
fs::path make_dir(const Args& a) {
  const fs::path parent = a.dir.empty() ? fs::temp_directory_path() : fs::path(a.dir);
  std::string tmpl = (parent / "joule-trace-overhead-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a directory " + tmpl);
  return tmpl;
}

int run(const Args& a) {
  const fs::path dir = make_dir(a);
  struct RemoveAll {
    fs::path p;
    ~RemoveAll() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{dir};
  std::vector<std::vector<Sample>> by_mode(kNumModes);
  for (int r = 0; r < a.runs; ++r)
    for (int m = 0; m < kNumModes; ++m)
      by_mode[std::size_t(m)].push_back(run_once(kModes[m], a, dir));
  print_table(a, by_mode);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Measures the cost of tracing per task for JOULE_TRACE=none, paraver and chrome.",
               "joule-trace-overhead");
  Args a;
  app.add_option("--workers", a.workers, "JOULE_WORKERS for every run (0: one per CPU)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  app.add_option("--tasks", a.tasks, "empty tasks per run")
      ->check(CLI::Range(1L, 100000000L))
      ->capture_default_str();
  app.add_option("--runs", a.runs, "runs per mode (the median is printed)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--dir", a.dir,
                 "where to create the temporary trace directory (default: $TMPDIR or /tmp)")
      ->type_name("DIR");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "joule-trace-overhead: error: %s\n", e.what());
    return 1;
  }
}
