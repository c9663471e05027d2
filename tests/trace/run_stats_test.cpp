// The report's numbers against hand-computed ones: POP metrics from
// synthetic per-thread statistics, the DLB thesis's worked examples, per-label
// tables, and the same metrics computed by joule-trace from a trace model.
#include <gtest/gtest.h>

#include <sstream>

#include "pop_metrics.hpp"
#include "run_stats.hpp"
#include "trace_events.hpp"
#include "trace_model.hpp"

namespace {

namespace tf = joule::trace_format;
constexpr std::uint64_t kS = 1000000000ull;

TEST(PopMetrics, SeedExamples) {
  // DLB thesis Fig. 1.2: t1 = 3 s, t2 = 1.5 s -> load balance 0.75.
  const auto a = tf::compute_pop({3 * kS, 3 * kS / 2}, 3 * kS);
  EXPECT_DOUBLE_EQ(a.load_balance, 0.75);
  EXPECT_DOUBLE_EQ(a.comm_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(a.parallel_efficiency, 0.75);
  // Fig. A.2: 8 CPUs, 4 compute 5 s and 4 compute 10 s in 10 s -> 75 %.
  const auto b = tf::compute_pop(
      {5 * kS, 5 * kS, 5 * kS, 5 * kS, 10 * kS, 10 * kS, 10 * kS, 10 * kS}, 10 * kS);
  EXPECT_DOUBLE_EQ(b.parallel_efficiency, 0.75);
  EXPECT_DOUBLE_EQ(b.load_balance, 0.75);
  EXPECT_EQ(b.units, 8);
  // The identity PE = LB x CE, and the empty case.
  const auto c = tf::compute_pop({2 * kS, 1 * kS, 4 * kS}, 8 * kS);
  EXPECT_NEAR(c.parallel_efficiency, c.load_balance * c.comm_efficiency, 1e-15);
  EXPECT_NEAR(c.parallel_efficiency, 7.0 / 24.0, 1e-15);
  EXPECT_EQ(tf::compute_pop({}, kS).units, 0);
}

tf::RunStats synthetic() {
  // worker 0: labels 2 (100 ns) and 3 (300 ns) outermost, a label-2 task of
  // 50 ns nested in the label-3 one; worker 1: label 3 for 200 ns and two
  // lends; a non-worker thread ran a label-2 task of 25 ns.
  tf::WorkerStats w0, w1, other;
  w0.task(2, 100, true);
  w0.task(2, 50, false);
  w0.task(3, 300, true);
  w0.sleep(80);
  w1.task(3, 200, true);
  w1.lending(tf::kLend);
  w1.lending(tf::kLend);
  w1.lending(tf::kReclaim);
  other.task(2, 25, true);
  tf::RunStats s;
  s.add_thread(0, 4, w0);
  s.add_thread(1, 5, w1);
  s.add_thread(-1, -1, other);
  s.set_elapsed_ns(1000);
  s.set_label_names({"End", "unlabelled", "small", "big"});
  return s;
}

TEST(RunStats, PopOverWorkersOnly) {
  const tf::PopMetrics m = synthetic().pop();
  // useful: worker 0 = 100 + 300 = 400 (the nested 50 is inside the 300),
  // worker 1 = 200; the non-worker thread is not a unit.
  EXPECT_EQ(m.units, 2);
  EXPECT_DOUBLE_EQ(m.useful_s, 600e-9);
  EXPECT_DOUBLE_EQ(m.max_useful_s, 400e-9);
  EXPECT_DOUBLE_EQ(m.load_balance, 300.0 / 400.0);
  EXPECT_DOUBLE_EQ(m.comm_efficiency, 400.0 / 1000.0);
  EXPECT_DOUBLE_EQ(m.parallel_efficiency, 600.0 / (2 * 1000.0));
}

TEST(RunStats, LabelsAndLending) {
  const tf::RunStats s = synthetic();
  const auto rows = s.labels();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "big");  // 500 ns in total, first
  EXPECT_EQ(rows[0].stats.count, 2u);
  EXPECT_EQ(rows[0].stats.total_ns, 500u);
  EXPECT_EQ(rows[0].stats.max_ns, 300u);
  EXPECT_DOUBLE_EQ(rows[0].mean_us(), 0.25);
  EXPECT_EQ(rows[1].name, "small");  // 100 + 50 + 25, all threads
  EXPECT_EQ(rows[1].stats.count, 3u);
  EXPECT_EQ(rows[1].stats.total_ns, 175u);
  EXPECT_EQ(rows[1].stats.max_ns, 100u);
  EXPECT_EQ(s.tasks(), 5u);
  const auto l = s.lending();
  EXPECT_EQ(l[tf::kLend], 2u);
  EXPECT_EQ(l[tf::kReclaim], 1u);
  EXPECT_EQ(l[tf::kBorrow], 0u);

  std::ostringstream os;
  s.print(os);
  const std::string text = os.str();
  for (const char* want :
       {"parallel efficiency      0.300", "load balance             0.750",
        "communication efficiency 0.400", "lent 2, borrowed 0, reclaimed 1", "big", "small"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
}

TEST(TraceSummary, ModelGivesTheSameNumbers) {
  // Two processes; process 0 has workers useful 400 / 200 in 1000 ns (as
  // above), process 1 one worker useful 300 in 600 ns starting at 200.
  tf::TraceModel m;
  m.labels = {"End", "unlabelled", "small", "big"};
  m.processes = {{0, 10, "h", 0, 1000}, {1, 11, "h", 200, 800}};
  tf::Row r0{0, 0, 4, "w0", {{0, 100, 2, 0}, {200, 500, 3, 0}, {250, 300, 2, 0}}, {}};
  tf::Row r1{0, 1, 5, "w1", {{0, 200, 3, 0}}, {{300, 900, tf::kSleeping, 0}}};
  tf::Row r2{1, 0, 0, "w0", {{200, 500, 2, 0}}, {}};
  tf::Row ext{0, -1, -1, "x", {{0, 25, 2, 0}}, {}};
  m.rows = {r0, r1, r2, ext};
  m.finish();
  EXPECT_EQ(m.rows[0].tasks[2].depth, 1u);  // nested, found from the times
  const tf::TraceSummary s = tf::summarize(m);
  ASSERT_EQ(s.processes.size(), 2u);
  EXPECT_DOUBLE_EQ(s.processes[0].pop.load_balance, 0.75);
  EXPECT_DOUBLE_EQ(s.processes[0].pop.parallel_efficiency, 0.3);
  EXPECT_DOUBLE_EQ(s.processes[1].pop.parallel_efficiency, 0.5);  // 300 of 600
  // Job: 3 workers, useful 400 + 200 + 300 = 900 over the span 0..1000.
  EXPECT_EQ(s.job.units, 3);
  EXPECT_DOUBLE_EQ(s.job.parallel_efficiency, 900.0 / 3000.0);
  EXPECT_DOUBLE_EQ(s.job.load_balance, 300.0 / 400.0);
  // Across processes: 600 vs 300.
  EXPECT_DOUBLE_EQ(s.mpi_lb.load_balance, 450.0 / 600.0);
  ASSERT_EQ(s.labels.size(), 2u);
  EXPECT_EQ(s.labels[0].name, "big");  // 300 + 200 = 500
  EXPECT_EQ(s.labels[0].stats.total_ns, 500u);
  EXPECT_EQ(s.labels[1].name, "small");  // 100 + 50 + 300 + 25 = 475
  EXPECT_EQ(s.labels[1].stats.count, 4u);
  EXPECT_EQ(s.labels[1].stats.total_ns, 475u);
  EXPECT_EQ(s.labels[1].stats.max_ns, 300u);
  std::ostringstream os;
  tf::print_summary(s, os);
  EXPECT_NE(os.str().find("0.300"), std::string::npos) << os.str();
}

}  // namespace
