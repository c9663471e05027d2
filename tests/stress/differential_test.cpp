// Differential stress test: random task programs (random regions and kinds,
// nesting, taskwaits, taskwait_ons, final, if_=false, priorities) run
// sequentially and on joule under every worker count / scheduler / immediate
// successor setting; final memory and every observation must match exactly.
//
//   stress_differential [--programs=N] [--seed=S] [--only=PROGRAM_SEED]
//                       [--max-tasks=N] [gtest flags]
// N is the total over all configurations (default 4000; the environment
// variables JOULE_STRESS_PROGRAMS and JOULE_STRESS_SEED also set N and S and
// are removed before the runtime reads the environment). A failure prints
// the program seed and the program; rerun it with --only=<seed>.
#include "interpreter.hpp"
#include "program.hpp"
#include "runtime_sweep.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

namespace {

using namespace joule_test;
using namespace joule_stress;

struct options {
  std::uint64_t programs = 4000;
  std::uint64_t seed = 20240601;
  std::uint64_t only = 0;
  bool has_only = false;
  std::uint32_t max_tasks = 60;
};
options g_opts;

// Aborts with the current program when no program finishes for a long time,
// so a deadlock reports its seed instead of only a ctest timeout.
class watchdog {
 public:
  void start() {
    thread_ = std::thread([this] { loop(); });
  }
  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  void begin(const std::string& config, std::uint64_t seed) {
    std::lock_guard lock(m_);
    config_ = config;
    seed_ = seed;
    busy_ = true;
    since_ = std::chrono::steady_clock::now();
  }
  void end() {
    std::lock_guard lock(m_);
    busy_ = false;
  }

 private:
  void loop() {
    const auto limit = std::chrono::seconds(under_sanitizer() ? 300 : 60);
    while (!stop_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      std::lock_guard lock(m_);
      if (!busy_ || std::chrono::steady_clock::now() - since_ < limit) continue;
      std::fprintf(stderr, "\nDEADLOCK? program %llu under %s has not finished in %llds\n%s\n",
                   static_cast<unsigned long long>(seed_), config_.c_str(),
                   static_cast<long long>(limit.count()),
                   describe(generate(seed_, g_opts.max_tasks)).c_str());
      std::fflush(stderr);
      std::abort();
    }
  }

  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex m_;
  std::string config_;
  std::uint64_t seed_ = 0;
  bool busy_ = false;
  std::chrono::steady_clock::time_point since_;
};
watchdog g_watchdog;

class Differential : public testing::TestWithParam<sweep_config> {};

TEST_P(Differential, RandomPrograms) {
  const sweep_config& cfg = GetParam();
  const std::string name = config_name(cfg);
  auto rt = start_runtime(cfg);
  const auto configs = full_sweep().size();
  const std::uint64_t count = g_opts.has_only ? 1 : (g_opts.programs + configs - 1) / configs;
  const std::uint64_t stream = std::hash<std::string>{}(name);
  int failures = 0;
  for (std::uint64_t i = 0; i < count && failures < 3; ++i) {
    const std::uint64_t seed =
        g_opts.has_only ? g_opts.only : mix64(g_opts.seed ^ mix64(stream + i));
    const program p = generate(seed, g_opts.max_tasks);
    const run_result expected = run_sequential(p);
    g_watchdog.begin(name, seed);
    const run_result actual = run_joule(p);
    g_watchdog.end();
    const std::string diff = compare(p, expected, actual);
    if (!diff.empty()) {
      ++failures;
      ADD_FAILURE() << "program seed " << seed << " under " << name
                    << " differs from the sequential run:\n"
                    << diff << describe(p) << "rerun: stress_differential --only=" << seed
                    << " --gtest_filter='*/" << name << "'";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Stress, Differential, testing::ValuesIn(full_sweep()), config_namer{});

// The comparison has teeth: the same programs spawned without their
// dependencies (one worker, lifo, so tasks run reordered but never at the
// same time) must mostly disagree with the sequential run.
TEST(DifferentialSelfCheck, NoticesDroppedDependencies) {
  if (g_opts.has_only) GTEST_SKIP();
  auto rt = start_runtime({1, "lifo", false});
  int differ = 0;
  constexpr int n = 50;
  for (int i = 0; i < n; ++i) {
    const program p = generate(mix64(g_opts.seed + 7919 * i), g_opts.max_tasks);
    if (!compare(p, run_sequential(p), run_joule(p, true)).empty()) ++differ;
  }
  EXPECT_GE(differ, n / 2) << "only " << differ << " of " << n << " programs noticed";
}

std::uint64_t parse_u64(const char* s) { return std::strtoull(s, nullptr, 10); }

// Reads (and removes, since the runtime rejects unknown JOULE_* variables)
// the environment overrides, then the command-line flags.
void parse_options(int argc, char** argv) {
  bool explicit_count = false;
  if (const char* v = std::getenv("JOULE_STRESS_PROGRAMS")) {
    g_opts.programs = parse_u64(v);
    explicit_count = true;
  }
  if (const char* v = std::getenv("JOULE_STRESS_SEED")) g_opts.seed = parse_u64(v);
  ::unsetenv("JOULE_STRESS_PROGRAMS");
  ::unsetenv("JOULE_STRESS_SEED");
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const std::size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = value("--programs=")) {
      g_opts.programs = parse_u64(v);
      explicit_count = true;
    } else if (const char* v2 = value("--seed=")) {
      g_opts.seed = parse_u64(v2);
    } else if (const char* v3 = value("--only=")) {
      g_opts.only = parse_u64(v3);
      g_opts.has_only = true;
    } else if (const char* v4 = value("--max-tasks=")) {
      g_opts.max_tasks = static_cast<std::uint32_t>(parse_u64(v4));
    } else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      std::exit(2);
    }
  }
  if (under_sanitizer() && !explicit_count) {
    // Sanitized runs are ~10x slower; keep the default run within its timeout.
    g_opts.programs /= 4;
  }
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  parse_options(argc, argv);
  std::printf("differential stress: %llu programs, seed %llu%s\n",
              static_cast<unsigned long long>(g_opts.programs),
              static_cast<unsigned long long>(g_opts.seed),
              under_sanitizer() ? " (sanitized)" : "");
  g_watchdog.start();
  const int rc = RUN_ALL_TESTS();
  g_watchdog.stop();
  return rc;
}
