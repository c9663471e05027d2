// Runs the runtime with JOULE_TRACE=paraver|chrome and checks the files:
// they parse, every task is in them once, times are ordered per thread,
// subsystem events and counters arrive, small buffers spill correctly and
// per-process traces merge.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "json.hpp"
#include "merge.hpp"
#include "paraver_files.hpp"
#include "temp_dir.hpp"
#include "trace_events.hpp"
#include "trace_model.hpp"
#include "trace_session.hpp"
#include "trace_test_util.hpp"

namespace {

using namespace trace_test;
namespace tf = joule::trace_format;

std::map<std::string, int> label_counts(const tf::TraceModel& m) {
  std::map<std::string, int> n;
  for (const auto& r : m.rows)
    for (const auto& s : r.tasks) ++n[m.labels.at(s.what)];
  return n;
}

void expect_labels(const tf::TraceModel& m, const Expect& e, int copies = 1) {
  auto n = label_counts(m);
  EXPECT_EQ(n["alpha"], copies * e.alpha);
  EXPECT_EQ(n["beta"], copies * e.beta);
  EXPECT_EQ(n["parent"], copies * e.parent);
  EXPECT_EQ(n["child"], copies * e.child);
  EXPECT_EQ(n["events"], copies * e.events);
}

// Checks order and coverage of one Paraver file; returns counts by type.
std::map<long long, int> check_prv(const PrvFile& f, const Expect& e) {
  std::map<long long, int> by_type;
  std::map<std::pair<long long, long long>, long long> state_end;  // thread -> last end
  std::set<long long> ids;
  long long last = 0;
  for (const auto& l : f.lines) {
    const long long t = l.f[5];
    EXPECT_GE(t, last) << "records not sorted by time";
    last = t;
    const auto thread = std::make_pair(l.f[3], l.f[4]);
    if (l.type == 1) {
      EXPECT_LE(l.f[5], l.f[6]);
      EXPECT_LE(l.f[6], f.ftime);
      EXPECT_EQ(state_end[thread], l.f[5]) << "states of a thread must be contiguous";
      state_end[thread] = l.f[6];
      continue;
    }
    for (std::size_t i = 6; i + 1 < l.f.size(); i += 2) {
      ++by_type[l.f[i]];
      if (l.f[i] == tf::kTypeTaskId && l.f[i + 1] != 0) ids.insert(l.f[i + 1]);
    }
  }
  for (const auto& [thread, end] : state_end) EXPECT_EQ(end, f.ftime) << "state coverage";
  EXPECT_EQ(int(ids.size()), e.total()) << "distinct started tasks";
  EXPECT_EQ(by_type[tf::kTypeTaskCreate], e.total());
  EXPECT_EQ(by_type[tf::kTypeIteration], e.iterations);
  EXPECT_EQ(by_type[tf::kTypeEventBase + tf::kEvCpuLend], e.iterations);
  EXPECT_EQ(by_type[tf::kTypeEventBase + tf::kEvMpiCall], 2 * e.iterations);
  return by_type;
}

TEST(TraceFiles, ParaverParsesAndCountsMatch) {
  TempDir dir;
  const Expect e = run_workload(
      {{"JOULE_WORKERS", "2"}, {"JOULE_TRACE", "paraver"}, {"JOULE_TRACE_DIR", dir.path()}});
  const auto prvs = dir.files(".prv");
  ASSERT_EQ(prvs.size(), 1u);
  const PrvFile f = read_prv(prvs[0]);
  EXPECT_EQ(f.tasks, 1);
  ASSERT_EQ(f.threads.size(), 1u);
  EXPECT_GE(f.threads[0], 2);
  check_prv(f, e);

  const std::string pcf = read_file(tf::sibling(prvs[0], ".pcf"));
  for (const char* s : {"alpha", "beta", "parent", "child", "power_w (x1000)",
                        "frequency_mhz cpu 0 (x1000)", "MPI_Barrier", "Sleeping", "Lent CPU"})
    EXPECT_NE(pcf.find(s), std::string::npos) << s;
  const std::string row = read_file(tf::sibling(prvs[0], ".row"));
  EXPECT_NE(row.find("LEVEL THREAD SIZE " + std::to_string(f.threads[0])), std::string::npos);

  const tf::TraceModel m = tf::load_paraver(prvs[0]);
  expect_labels(m, e);
  int lent = 0, workers = 0;
  for (const auto& r : m.rows) {
    workers += r.worker >= 0;
    for (const auto& s : r.states) lent += s.what == tf::kLent;
  }
  EXPECT_EQ(workers, 2);
  EXPECT_GE(lent, 1);
  EXPECT_EQ(int(m.iterations.size()), e.iterations);
  bool power = false, freq = false;
  for (const auto& c : m.counters) {
    if (c.name == "power_w") {
      power = true;
      ASSERT_EQ(int(c.samples.size()), e.iterations);
      EXPECT_DOUBLE_EQ(c.samples[0].second, 10.0);
      EXPECT_DOUBLE_EQ(c.samples[2].second, 12.0);
    }
    if (c.name == "frequency_mhz" && c.cpu == 0) freq = true;
  }
  EXPECT_TRUE(power);
  EXPECT_TRUE(freq);
}

TEST(TraceFiles, ChromeJsonIsValidAndOrdered) {
  TempDir dir;
  const Expect e = run_workload(
      {{"JOULE_WORKERS", "2"}, {"JOULE_TRACE", "chrome"}, {"JOULE_TRACE_DIR", dir.path()}});
  const auto files = dir.files(".json");
  ASSERT_EQ(files.size(), 1u);
  const std::string text = read_file(files[0]);
  EXPECT_EQ(tf::json_error(text), "");
  if (std::system("python3 -c pass > /dev/null 2>&1") == 0) {
    const std::string cmd =
        "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' " + files[0];
    EXPECT_EQ(std::system(cmd.c_str()), 0) << "python3's json rejects the trace";
  }
  // Count by kind; task slices of a thread end in order.
  tf::JsonParser p(text);
  std::string key;
  std::map<std::string, int> n;
  std::map<std::pair<long, long>, double> last_end;
  p.begin_object();
  while (p.next_key(key)) {
    if (key != "traceEvents") {
      p.skip_value();
      continue;
    }
    p.begin_array();
    while (p.next_item()) {
      const tf::JsonValue ev = p.parse_value();
      const std::string ph = ev.string_or("ph", ""), cat = ev.string_or("cat", "");
      ++n[ph + "/" + cat];
      if (ph == "X" && cat == "task") {
        const auto tid = std::make_pair(long(ev.number_or("pid", 0)), long(ev.number_or("tid", 0)));
        const double end = ev.number_or("ts", 0) + ev.number_or("dur", 0);
        EXPECT_GE(end + 1e-3, last_end[tid]) << "task ends out of order on a thread";
        last_end[tid] = end;
      }
    }
  }
  EXPECT_EQ(n["X/task"], e.total());
  EXPECT_EQ(n["i/create"], e.total());
  EXPECT_EQ(n["i/iteration"], e.iterations);
  EXPECT_EQ(n["C/counter"], 2 * e.iterations);
  EXPECT_EQ(n["B/mpi"], e.iterations);
  EXPECT_EQ(n["E/mpi"], e.iterations);
  const tf::TraceModel m = tf::load_chrome(files[0]);
  expect_labels(m, e);
}

TEST(TraceFiles, SmallBuffersSpillToDiskAndKeepEverything) {
  TempDir dir;
  const Expect e = run_workload({{"JOULE_WORKERS", "2"},
                                 {"JOULE_TRACE", "paraver"},
                                 {"JOULE_TRACE_DIR", dir.path()},
                                 {"JOULE_TRACE_BUFFER_KB", "16"}},
                                3000, 3);
  const auto prvs = dir.files(".prv");
  ASSERT_EQ(prvs.size(), 1u);
  check_prv(read_prv(prvs[0]), e);
  expect_labels(tf::load_paraver(prvs[0]), e);
  for (const auto& entry : fs::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string().rfind(".joule-trace-", 0), std::string::npos)
        << "spill file left behind";
}

TEST(TraceFiles, ParaverMergeOrdersByRank) {
  TempDir a, b, out;
  const Expect e = run_workload({{"JOULE_WORKERS", "2"},
                                 {"JOULE_TRACE", "paraver"},
                                 {"JOULE_TRACE_DIR", a.path()},
                                 {"JOULE_TRACE_RANK", "1"}});
  run_workload({{"JOULE_WORKERS", "1"},
                {"JOULE_TRACE", "paraver"},
                {"JOULE_TRACE_DIR", b.path()},
                {"JOULE_TRACE_RANK", "0"}});
  ASSERT_EQ(a.files(".prv").size(), 1u);
  EXPECT_NE(a.files(".prv")[0].find("-rank1"), std::string::npos);
  const auto merged =
      tf::merge_paraver({a.files(".prv")[0], b.files(".prv")[0]}, out.path() + "/job");
  const PrvFile f = read_prv(out.path() + "/job.prv");
  EXPECT_EQ(f.tasks, 2);
  ASSERT_EQ(f.threads.size(), 2u);
  EXPECT_EQ(f.threads[0], 1);  // rank 0 ran one worker
  EXPECT_GE(f.threads[1], 2);
  long long last = 0;
  std::set<std::pair<long long, long long>> task_ids;  // (process, id)
  for (const auto& l : f.lines) {
    EXPECT_GE(l.f[5], last);
    last = l.f[5];
    for (std::size_t i = 6; l.type == 2 && i + 1 < l.f.size(); i += 2)
      if (l.f[i] == tf::kTypeTaskId && l.f[i + 1]) task_ids.insert({l.f[3], l.f[i + 1]});
  }
  EXPECT_EQ(int(task_ids.size()), 2 * e.total());
  const tf::TraceModel m = tf::load_paraver(out.path() + "/job.prv");
  ASSERT_EQ(m.processes.size(), 2u);
  EXPECT_EQ(m.processes[0].rank, 0);
  EXPECT_EQ(m.processes[1].rank, 1);
  expect_labels(m, e, 2);
  const tf::TraceSummary s = tf::summarize(m);
  EXPECT_EQ(s.job.units, 3);
}

TEST(TraceFiles, ChromeMergeIsValid) {
  TempDir a, b, out;
  const Expect e = run_workload({{"JOULE_WORKERS", "1"},
                                 {"JOULE_TRACE", "chrome"},
                                 {"JOULE_TRACE_DIR", a.path()},
                                 {"JOULE_TRACE_RANK", "1"}});
  run_workload({{"JOULE_WORKERS", "1"},
                {"JOULE_TRACE", "chrome"},
                {"JOULE_TRACE_DIR", b.path()},
                {"JOULE_TRACE_RANK", "0"}});
  const std::string path = out.path() + "/job.json";
  tf::merge_chrome({a.files(".json")[0], b.files(".json")[0]}, path);
  EXPECT_EQ(tf::json_error(read_file(path)), "");
  const tf::TraceModel m = tf::load_chrome(path);
  ASSERT_EQ(m.processes.size(), 2u);
  expect_labels(m, e, 2);
}

TEST(TraceFiles, ReportWithoutTraceWritesNoFiles) {
  TempDir dir;
  testing::internal::CaptureStderr();
  run_workload({{"JOULE_WORKERS", "2"},
                {"JOULE_REPORT", "1"},
                {"JOULE_TRACE", "none"},
                {"JOULE_TRACE_DIR", dir.path()}});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("load balance"), std::string::npos) << err;
  EXPECT_NE(err.find("alpha"), std::string::npos) << err;
  EXPECT_NE(err.find("CPU lending"), std::string::npos) << err;
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(TraceFiles, BadKeysAreConfigErrors) {
  for (auto kv : std::vector<std::pair<std::string, std::string>>{
           {"JOULE_TRACE", "otf2"}, {"JOULE_TRACE_BUFFER_KB", "1"}, {"JOULE_TRACE_RANK", "-2"}}) {
    try {
      joule::runtime rt({kv});
      ADD_FAILURE() << kv.first << "=" << kv.second << " accepted";
    } catch (const joule::error& err) {
      EXPECT_EQ(err.code(), JOULE_ERR_CONFIG);
      EXPECT_NE(std::string(err.what()).find(kv.first), std::string::npos) << err.what();
    }
  }
}

TEST(TraceFiles, ApiIsANoOpWithoutTracing) {
  namespace tr = joule::core::trace;
  EXPECT_FALSE(tr::enabled());
  tr::emit_counter("power_w", 1.0);
  tr::emit_event(tr::Event::kEvCpuLend, 1);
  tr::begin_state(tr::State::kMpi);
  tr::end_state(tr::State::kMpi);
  joule::runtime rt({{"JOULE_WORKERS", "1"}, {"JOULE_TRACE", "none"}, {"JOULE_REPORT", "0"}});
  EXPECT_FALSE(tr::enabled());  // JOULE_TRACE=none, no report: no observer at all
}

// White-box: a worker started on a borrowed CPU (index beyond the owned
// workers) gets its own row in the Borrowed state and stays out of the POP
// units. Times are synthetic (ns since an arbitrary origin).
TEST(TraceSession, GuestWorkersAreBorrowedRows) {
  TempDir dir;
  joule::trace::TraceSession::Options o;
  o.format = joule::trace::TraceSession::Format::paraver;
  o.dir = dir.path();
  joule::trace::TraceSession s(o);
  s.start({0}, 1000);
  std::thread([&] {
    s.bind_worker(0, 0, 1000);
    s.buffer(0).task_start("own", 1, 2000);
    s.buffer(0).task_end(3000);
  }).join();
  std::thread([&] {
    s.bind_worker(1, 5, 1500);
    s.buffer(1).task_start("guest", 2, 2500);
    s.buffer(1).task_end(4500);
  }).join();
  s.stop(5000);
  EXPECT_EQ(s.stats().pop().units, 1);
  EXPECT_DOUBLE_EQ(s.stats().pop().useful_s, 1000e-9);
  EXPECT_EQ(s.stats().guest_useful_ns(), 2000u);
  ASSERT_EQ(s.files().size(), 4u);
  const PrvFile f = read_prv(s.files()[0]);
  EXPECT_EQ(f.ftime, 4000);
  ASSERT_EQ(f.threads.size(), 1u);
  EXPECT_EQ(f.threads[0], 2);
  const tf::TraceModel m = tf::load_paraver(s.files()[0]);
  ASSERT_EQ(m.rows.size(), 2u);
  EXPECT_FALSE(m.rows[0].guest);
  EXPECT_TRUE(m.rows[1].guest);
  EXPECT_EQ(m.rows[1].cpu, 5);
  ASSERT_EQ(m.rows[1].states.size(), 2u);  // borrowed, then running, then borrowed again
  EXPECT_EQ(m.rows[1].states[0].what, tf::kBorrowed);
  EXPECT_EQ(m.rows[1].states[0].t0, 500u);
  EXPECT_EQ(m.rows[1].states[0].t1, 1500u);
  EXPECT_EQ(m.rows[1].states[1].t0, 3500u);
  ASSERT_EQ(m.rows[1].tasks.size(), 1u);
  EXPECT_EQ(m.labels[m.rows[1].tasks[0].what], "guest");
  EXPECT_EQ(tf::summarize(m).processes[0].pop.units, 1);
}

// A 100-byte file whose header claims two billion threads used to make
// that many rows (gigabytes) before reading a record; counts are bounded.
TEST(TraceFiles, HeaderCountsAreBounded) {
  const joule_test::TempDir dir;
  const std::string prv = dir.file("huge.prv");
  std::ofstream(prv) << "#Paraver (01/01/2026 at 00:00):1000_ns:1(2):1:1(2000000000:1)\n";
  try {
    tf::load_paraver(prv);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(prv + ":1: "), std::string::npos) << m;
    EXPECT_NE(m.find("threads of a task 2000000000 out of range; allowed: 1..65536"),
              std::string::npos)
        << m;
  }
  std::ofstream(prv) << "#Paraver (x):1000_ns:1(2):1:2(40000:1,40000:1)\n";
  EXPECT_THROW(tf::load_paraver(prv), std::runtime_error);
}

// A malformed .info thread line names the file and line, not std::stoi.
TEST(TraceFiles, BadInfoThreadLineNamesFileAndLine) {
  const joule_test::TempDir dir;
  const std::string info = dir.file("t.info");
  std::ofstream(info) << "format=joule-paraver 1\nthread=1.x 0 0\n";
  try {
    tf::read_info(info);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(info + ":2: bad thread id '1.x'"), std::string::npos) << m;
    EXPECT_EQ(m.find("stoi"), std::string::npos) << m;
  }
}

}  // namespace
