// The subsystem events reach the trace from the layers that own them: the
// dependency domain (edges), the emulated DVFS and the platform's samples
// (frequency, power, temperature), CPU lending (lend / reclaim) and
// iteration boundaries, in both formats, with the counts the program implies.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "event_test_util.hpp"
#include "joule/joule.h"
#include "platform.hpp"
#include "test_support.hpp"
#include "timeline.hpp"
#include "trace_events.hpp"
#include "trace_model.hpp"

namespace {

using namespace trace_test;
namespace tf = joule::trace_format;

const char* const kFormats[] = {"paraver", "chrome"};

// A chain of n tasks over one variable (n - 1 edges), then a writer, three
// readers and a writer over another (3 + 3 edges). The first task waits
// until everything is submitted, so no predecessor finishes before its
// successor is registered and every edge is really added. Returns the edges.
int run_graph(const std::string& format, const std::string& dir, int n, int iterations) {
  joule::detail::runtime_start(
      std::vector<std::pair<std::string, std::string>>{
          {"JOULE_WORKERS", "2"}, {"JOULE_TRACE", format}, {"JOULE_TRACE_DIR", dir}}
          .data(),
      3);
  int x = 0, y = 0, edges = 0;
  for (int it = 0; it < iterations; ++it) {
    std::atomic<bool> go{false};
    joule::spawn({joule::inout(x)},
                 [&go] {
                   while (!go.load()) std::this_thread::yield();
                 },
                 {.label = "first"});
    for (int i = 1; i < n; ++i) joule::spawn({joule::inout(x)}, [&x] { ++x; }, {.label = "chain"});
    joule::spawn({joule::out(y)}, [&y] { y = 1; }, {.label = "writer"});
    for (int r = 0; r < 3; ++r) joule::spawn({joule::in(y)}, [] {}, {.label = "reader"});
    joule::spawn({joule::inout(y)}, [&y] { ++y; }, {.label = "writer"});
    edges += n - 1 + 6;
    go.store(true);
    joule::taskwait();
    joule::iteration_boundary();
  }
  joule::detail::runtime_stop();
  return edges;
}

TEST(DependencyEdges, OneEventPerEdgeInBothFormats) {
  for (const char* format : kFormats) {
    SCOPED_TRACE(format);
    TempDir dir;
    const int edges = run_graph(format, dir.path(), 20, 2);
    const Events ev = load_events(dir);
    EXPECT_EQ(ev.count(tf::kEvDependency), edges);
    if (std::string(format) == "paraver") EXPECT_EQ(ev.count(tf::kEvDependencyFrom), edges);
    EXPECT_EQ(ev.iterations, 2);
    // Every edge names two tasks that exist, the successor created after the predecessor.
    ASSERT_EQ(ev.edges.size(), std::size_t(edges));
    std::set<std::pair<std::uint64_t, std::uint64_t>> distinct;
    for (const auto& [pred, succ] : ev.edges) {
      EXPECT_NE(pred, 0u);
      EXPECT_NE(succ, 0u);
      EXPECT_TRUE(ev.created.count(pred) && ev.created.count(succ)) << pred << " -> " << succ;
      if (ev.created.count(pred) && ev.created.count(succ))
        EXPECT_LT(ev.created.at(pred), ev.created.at(succ));
      distinct.insert({pred, succ});
    }
    EXPECT_EQ(distinct.size(), std::size_t(edges));
  }
}

TEST(DependencyEdges, PcfNamesTheNewEvents) {
  TempDir dir;
  run_graph("paraver", dir.path(), 3, 1);
  const auto pcf = dir.files(".pcf");
  ASSERT_EQ(pcf.size(), 1u);
  const std::string text = read_file(pcf[0]);
  for (const char* name :
       {"93000101    Dependency edge (successor task id)",
        "93000110    Dependency edge from (predecessor task id)", "93000102    CPU lend (cpu+1)",
        "93000104    CPU reclaim (cpu+1)", "93000106    MPI call",
        "93000107    Offload copy in (bytes)", "93000109    Offload launch (task id)"})
    EXPECT_NE(text.find(name), std::string::npos) << name;
}

// Emulated DVFS: every frequency change is a sample of the CPU's
// frequency_mhz counter; the platform adds each worker's starting frequency
// and power and temperature samples at iteration boundaries and at the end.
TEST(PlatformEvents, EmulatedDvfsFrequencyAndPower) {
  for (const char* format : kFormats) {
    SCOPED_TRACE(format);
    TempDir dir;
    std::vector<std::uint32_t> set;
    std::uint32_t start = 0;
    int cpu = -1;
    {
      joule::runtime rt({{"JOULE_DVFS", "emulated"},
                         {"JOULE_ENERGY_POLICY", "none"},  // the test sets frequencies
                         {"JOULE_WORKERS", "1"},
                         {"JOULE_DVFS_LATENCY_US", "0"},
                         {"JOULE_TRACE", format},
                         {"JOULE_TRACE_DIR", dir.path()}});
      auto* p = joule::platform::current_platform();
      ASSERT_NE(p, nullptr);
      cpu = p->worker_cpu(0);
      const auto& table = p->pstates(cpu);
      ASSERT_GE(table.size(), 2u);
      start = p->frequency(cpu);
      joule::spawn([] {}, {.label = "warm"});  // the worker's starting frequency
      joule::taskwait();
      for (int i = 0; i < 6; ++i) {
        const std::uint32_t khz = i % 2 ? table.back() : table.front();
        ASSERT_TRUE(p->set_core_frequency(cpu, khz));
        set.push_back(khz);
        joule::spawn([] { std::this_thread::sleep_for(std::chrono::milliseconds(25)); });
        joule::taskwait();
        joule::iteration_boundary();  // >= 20 ms apart: the platform samples power
      }
    }
    const Events ev = load_events(dir);
    const std::string track = "frequency_mhz cpu " + std::to_string(cpu);
    const auto& f = ev.counters.count(track) ? ev.counters.at(track) : std::vector<double>{};
    ASSERT_EQ(f.size(), set.size() + 1) << "the start, then one sample per change";
    EXPECT_NEAR(f[0], start / 1000.0, 1e-6);
    for (std::size_t i = 0; i < set.size(); ++i) EXPECT_NEAR(f[i + 1], set[i] / 1000.0, 1e-6);
    ASSERT_TRUE(ev.counters.count("power_w"));
    EXPECT_GE(ev.counters.at("power_w").size(), 2u);  // iteration samples and the end
    for (double w : ev.counters.at("power_w")) EXPECT_GT(w, 0.0);
    EXPECT_TRUE(ev.counters.count("temperature_c"));
    // joule-trace draws them: a band from the lowest to the highest frequency, a power curve.
    const auto files = dir.files(std::string(format) == "paraver" ? ".prv" : ".json");
    const std::string svg = tf::render_svg(tf::load_trace(files.at(0)), {});
    EXPECT_NE(svg.find("rgb(255,60,0)"), std::string::npos);
    EXPECT_NE(svg.find("rgb(0,60,255)"), std::string::npos);
    EXPECT_NE(svg.find("power_w"), std::string::npos);
    EXPECT_NE(svg.find("<polyline"), std::string::npos);
  }
}

// JOULE_LENDING=local: an idle worker lends its CPU; ready work reclaims it.
TEST(LendingEvents, IdleWorkerLendsAndWorkReclaims) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs 2 CPUs";
  TempDir dir;
  {
    joule::runtime rt({{"JOULE_LENDING", "local"},
                       {"JOULE_CPUS", "0,1"},
                       {"JOULE_SPIN_US", "50"},
                       {"JOULE_TRACE", "paraver"},
                       {"JOULE_TRACE_DIR", dir.path()}});
    for (int round = 0; round < 3; ++round) {
      // Worker 1 idles and lends its CPU (as the table sees it).
      ASSERT_TRUE(joule_test::eventually([] {
        joule_cpu_info_t info{};
        return joule_get_cpu_info(1, &info) == JOULE_OK && info.state == JOULE_CPU_IDLE;
      })) << "round "
          << round;
      for (int i = 0; i < 40; ++i)
        joule::spawn(
            [] {
              const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(500);
              while (std::chrono::steady_clock::now() < until) {
              }
            },
            {.label = "work"});
      joule::taskwait();
    }
  }
  const Events ev = load_events(dir);
  const int lends = ev.count(tf::kEvCpuLend), reclaims = ev.count(tf::kEvCpuReclaim);
  EXPECT_GE(lends, 1);
  EXPECT_GE(reclaims, 1);
  EXPECT_LE(reclaims, lends) << "only a lent CPU is reclaimed";
  EXPECT_LE(lends, reclaims + 2) << "each lend but the last ones (per CPU) is reclaimed";
  // The timeline shows the lent periods.
  const tf::TraceModel m = tf::load_trace(dir.files(".prv").at(0));
  bool lent = false;
  for (const tf::Row& r : m.rows)
    for (const tf::Slice& s : r.states) lent = lent || s.what == tf::kLent;
  EXPECT_TRUE(lent);
  EXPECT_NE(tf::render_svg(m, {}).find("Lent CPU"), std::string::npos);
}

// The model pairs lend/reclaim and borrow/return into periods on the right rows.
TEST(LendingEvents, ModelTurnsEventsIntoPeriods) {
  tf::TraceModel m;
  m.labels = {"End", "unlabelled"};
  m.processes = {{0, 42, "node", 0, 10'000'000}};
  tf::Row own{0, 0, 3, "worker 0", {}, {}};
  own.states.push_back({1'000'000, 5'000'000, tf::kSleeping, 0});
  tf::Row guest{0, 1, 5, "worker 1", {}, {}, true};
  guest.states.push_back({2'000'000, 10'000'000, tf::kBorrowed, 0});  // its whole life
  m.rows = {own, guest};
  m.lending = {{1'000'000, 0, 3, tf::kEvCpuLend},   {4'000'000, 0, 3, tf::kEvCpuReclaim},
               {2'000'000, 0, 5, tf::kEvCpuBorrow}, {3'000'000, 0, 5, tf::kEvCpuReturn},
               {6'000'000, 0, 5, tf::kEvCpuBorrow}, {8'000'000, 0, 3, tf::kEvCpuLend}};
  m.finish();
  auto of = [](const tf::Row& r, std::uint32_t st) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> v;
    for (const auto& s : r.states)
      if (s.what == st) v.push_back({s.t0, s.t1});
    return v;
  };
  using V = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  EXPECT_EQ(of(m.rows[0], tf::kLent), (V{{1'000'000, 4'000'000}, {8'000'000, 10'000'000}}));
  EXPECT_EQ(of(m.rows[0], tf::kSleeping), (V{{4'000'000, 5'000'000}}));  // lent hides the park
  EXPECT_EQ(of(m.rows[1], tf::kBorrowed), (V{{2'000'000, 3'000'000}, {6'000'000, 10'000'000}}));
  const std::string svg = tf::render_svg(m, {});
  EXPECT_NE(svg.find("Lent CPU"), std::string::npos);
  EXPECT_NE(svg.find("Borrowed CPU"), std::string::npos);
}

}  // namespace
