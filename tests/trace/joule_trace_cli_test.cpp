// joule-trace, the built binary, on real traces: svg, html, stats and merge
// write what they should for both formats, and bad input (missing or
// garbage files, bad options) ends with a non-zero status and a message
// naming the file, never a crash. Also runs joule-trace-overhead briefly.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <fstream>

#include <cstdio>
#include <regex>
#include <sstream>

#include "json.hpp"
#include "trace_model.hpp"
#include "trace_test_util.hpp"

namespace {

using namespace trace_test;
namespace tf = joule::trace_format;

struct Result {
  int status = -1;  // exit status; 128 + signal if the process was killed
  std::string out;  // stdout and stderr
};

Result run(const std::string& cmd) {
  Result r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) r.out += buf;
  const int rc = ::pclose(p);
  r.status = WIFSIGNALED(rc) ? 128 + WTERMSIG(rc) : WEXITSTATUS(rc);
  return r;
}

std::string q(const std::string& s) { return "'" + s + "'"; }

std::string with_ext(const std::string& path, const char* ext) {
  return fs::path(path).replace_extension(ext).string();
}

Result tool(const std::string& args) { return run(std::string(JOULE_TRACE_BIN) + " " + args); }

// A clean failure: a status that is neither success nor a signal, and the
// message names `what` (usually the file).
void expect_failure(const Result& r, const std::string& what) {
  EXPECT_GT(r.status, 0) << r.out;
  EXPECT_LT(r.status, 128) << "killed by a signal: " << r.out;
  EXPECT_NE(r.out.find(what), std::string::npos)
      << "message does not name " << what << ": " << r.out;
  EXPECT_NE(r.out.find("error"), std::string::npos) << r.out;
}

std::map<std::string, int> label_counts(const tf::TraceModel& m) {
  std::map<std::string, int> n;
  for (const auto& r : m.rows)
    for (const auto& s : r.tasks) ++n[m.labels.at(s.what)];
  return n;
}

// The count column of a label's row in the stats table, -1 if absent.
long stats_count(const std::string& out, const std::string& label) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string name;
    long count = -1;
    if (ls >> name >> count && name == label) return count;
  }
  return -1;
}

// Two processes (ranks 0 and 1) traced in each format, once for all tests.
class JouleTraceCli : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dirs_ = new TempDir[3];
    for (int rank = 0; rank < 2; ++rank)
      for (int f = 0; f < 2; ++f)
        expect_ = run_workload({{"JOULE_WORKERS", "2"},
                                {"JOULE_TRACE", f == 0 ? "paraver" : "chrome"},
                                {"JOULE_TRACE_DIR", dirs_[f].path()},
                                {"JOULE_TRACE_RANK", std::to_string(rank)}});
    for (int f = 0; f < 2; ++f)
      for (const auto& path : dirs_[f].files(f == 0 ? ".prv" : ".json"))
        (f == 0 ? prv_ : json_)[path.find("-rank1") != std::string::npos] = path;
  }
  static void TearDownTestSuite() { delete[] dirs_; }

  void SetUp() override {
    ASSERT_TRUE(fs::exists(JOULE_TRACE_BIN)) << JOULE_TRACE_BIN;
    for (const auto* files : {&prv_, &json_})
      for (const auto& f : *files) ASSERT_FALSE(f.empty()) << "trace not written";
  }

  static const std::string& out_dir() { return dirs_[2].path(); }

  static inline TempDir* dirs_ = nullptr;  // paraver, chrome, outputs
  static inline Expect expect_;
  static inline std::string prv_[2], json_[2];  // by rank
};

TEST_F(JouleTraceCli, SvgShowsTheTasksOfAParaverTrace) {
  const Result r = tool("svg " + q(prv_[0]));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string path = with_ext(prv_[0], ".svg");
  EXPECT_NE(r.out.find(path), std::string::npos) << r.out;
  const std::string svg = read_file(path);
  EXPECT_EQ(xml_error(svg), "");
  for (const char* s : {"alpha", "beta", "parent", "child", "events", "worker 0", "worker 1",
                        "Lent CPU", "power_w", "it 1", "stroke-dasharray"})
    EXPECT_NE(svg.find(s), std::string::npos) << s;
  EXPECT_NE(svg.find(fs::path(prv_[0]).filename().string()), std::string::npos) << "default title";
}

TEST_F(JouleTraceCli, SvgOptions) {
  const std::string out = out_dir() + "/custom.svg";
  const Result r = tool("svg " + q(json_[1]) + " -o " + q(out) +
                        " --width 800 --from 0 --to 1000 --title 'my <run>'");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string svg = read_file(out);
  EXPECT_EQ(xml_error(svg), "");
  EXPECT_NE(svg.find("width=\"800\""), std::string::npos);
  EXPECT_NE(svg.find("my &lt;run&gt;"), std::string::npos);
  EXPECT_NE(svg.find("alpha"), std::string::npos);

  const std::string full = out_dir() + "/full.svg", zoom = out_dir() + "/zoom.svg";
  ASSERT_EQ(tool("svg " + q(json_[1]) + " -o " + q(full)).status, 0);
  ASSERT_EQ(tool("svg " + q(json_[1]) + " -o " + q(zoom) + " --to 0.001").status, 0);
  EXPECT_NE(read_file(zoom), read_file(full)) << "--to changes the drawing";
}

TEST_F(JouleTraceCli, HtmlHasTimelineAndTables) {
  const Result r = tool("html " + q(json_[0]));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string html = read_file(with_ext(json_[0], ".html"));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  const auto a = html.find("<svg"), b = html.find("</svg>");
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(xml_error(html.substr(a, b + 6 - a)), "");
  for (const char* s : {"<td>alpha</td>", "<td>child</td>", "load balance", "parallel eff."})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  EXPECT_NE(html.find("<td>" + std::to_string(expect_.alpha) + "</td>"), std::string::npos);
}

TEST_F(JouleTraceCli, StatsPrintsPopMetricsAndLabelCounts) {
  for (const std::string& trace : {prv_[0], json_[0]}) {
    SCOPED_TRACE(trace);
    const Result r = tool("stats " + q(trace));
    ASSERT_EQ(r.status, 0) << r.out;
    for (const char* s : {"par_eff", "load_bal", "comm_eff", "parallel efficiency", "load balance",
                          "communication efficiency", "rank 0"})
      EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
    EXPECT_EQ(stats_count(r.out, "alpha"), expect_.alpha) << r.out;
    EXPECT_EQ(stats_count(r.out, "beta"), expect_.beta) << r.out;
    EXPECT_EQ(stats_count(r.out, "parent"), expect_.parent) << r.out;
    EXPECT_EQ(stats_count(r.out, "child"), expect_.child) << r.out;
    // The process row: index 0, rank 0, the pid, 2 workers, then the metrics.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        r.out, m, std::regex(R"(\n +0 +0 +\d+ +2 +([0-9.]+) +([0-9.]+) +([0-9.]+))")))
        << r.out;
    EXPECT_GT(std::stod(m[1]), 0.0) << "elapsed";
    EXPECT_GT(std::stod(m[3]), 0.0) << "parallel efficiency";
    EXPECT_LE(std::stod(m[3]), 1.0) << "parallel efficiency";
  }
}

TEST_F(JouleTraceCli, MergeParaverKeepsBothProcesses) {
  const std::string base = out_dir() + "/job";
  const Result r = tool("merge -o " + q(base) + " " + q(prv_[1]) + " " + q(prv_[0]));
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* ext : {".prv", ".pcf", ".row", ".info"})
    EXPECT_TRUE(fs::exists(base + ext)) << ext;
  const tf::TraceModel m = tf::load_paraver(base + ".prv");
  ASSERT_EQ(m.processes.size(), 2u);
  EXPECT_EQ(m.processes[0].rank, 0);  // ordered by rank, not by argument
  EXPECT_EQ(m.processes[1].rank, 1);
  auto n = label_counts(m);
  EXPECT_EQ(n["alpha"], 2 * expect_.alpha);
  EXPECT_EQ(n["child"], 2 * expect_.child);
  int with_tasks[2] = {0, 0};
  for (const auto& row : m.rows)
    if (!row.tasks.empty() && row.process >= 0 && row.process < 2) ++with_tasks[row.process];
  EXPECT_GT(with_tasks[0], 0);
  EXPECT_GT(with_tasks[1], 0);

  const Result stats = tool("stats " + q(base + ".prv"));
  ASSERT_EQ(stats.status, 0) << stats.out;
  EXPECT_NE(stats.out.find("job (all workers of all processes): 4 workers"), std::string::npos)
      << stats.out;
  EXPECT_EQ(stats_count(stats.out, "alpha"), 2 * expect_.alpha) << stats.out;
  ASSERT_EQ(tool("svg " + q(base + ".prv")).status, 0);
  const std::string svg = read_file(base + ".svg");
  EXPECT_NE(svg.find("rank 0"), std::string::npos);
  EXPECT_NE(svg.find("rank 1"), std::string::npos);

  const Result again = tool("merge -o " + q(out_dir() + "/twice") + " " + q(base + ".prv"));
  expect_failure(again, base + ".prv");
  EXPECT_NE(again.out.find("already merged"), std::string::npos) << again.out;
}

TEST_F(JouleTraceCli, MergeChromeAndDefaultName) {
  const Result r = tool("merge " + q(json_[0]) + " " + q(json_[1]));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string merged = (fs::path(json_[0]).parent_path() / "merged.json").string();
  ASSERT_TRUE(fs::exists(merged)) << r.out;
  EXPECT_EQ(tf::json_error(read_file(merged)), "");
  const tf::TraceModel m = tf::load_chrome(merged);
  ASSERT_EQ(m.processes.size(), 2u);
  EXPECT_EQ(m.processes[0].rank, 0);
  EXPECT_EQ(m.processes[1].rank, 1);
  EXPECT_EQ(label_counts(m)["beta"], 2 * expect_.beta);
}

TEST_F(JouleTraceCli, MissingFilesAndBadOptions) {
  const std::string missing = out_dir() + "/no-such-trace.prv";
  expect_failure(tool("svg " + q(missing)), missing);
  expect_failure(tool("stats " + q(missing)), missing);
  expect_failure(tool("merge " + q(prv_[0]) + " " + q(missing)), missing);
  expect_failure(tool("svg " + q(prv_[0]) + " --bogus"), "--bogus");
  expect_failure(tool("svg " + q(prv_[0]) + " --width abc"), "--width");
  expect_failure(tool("svg " + q(prv_[0]) + " --width 10"), "--width");
  expect_failure(tool("html " + q(prv_[0]) + " --from -3"), "--from");
  expect_failure(tool("svg " + q(prv_[0]) + " --from 0.2 --to 0.1"), "--to");
  expect_failure(tool("svg " + q(prv_[0]) + " --from 1e9"), "--from");
  expect_failure(tool("frobnicate " + q(prv_[0])), "frobnicate");
  expect_failure(tool(""), "subcommand");
  const std::string unwritable = out_dir() + "/no-such-dir/x.svg";
  expect_failure(tool("svg " + q(prv_[0]) + " -o " + q(unwritable)), unwritable);
  expect_failure(tool("merge " + q(prv_[0]) + " " + q(json_[1])), json_[1]);
  expect_failure(tool("merge " + q(prv_[0]) + " " + q(prv_[0])), "given twice");
  const Result help = tool("svg --help");
  EXPECT_EQ(help.status, 0) << help.out;
  EXPECT_NE(help.out.find("--width"), std::string::npos) << help.out;
}

// Control bytes in a file name, an argument value or a file's contents come
// back as \xNN, never raw (an ESC would drive the terminal).
TEST_F(JouleTraceCli, ErrorsEscapeControlBytes) {
  const std::string esc = "\"$(printf '\\033')\"";  // the shell makes the byte
  auto expect_escaped = [](const Result& r, const std::string& shown) {
    EXPECT_GT(r.status, 0) << r.out;
    EXPECT_NE(r.out.find(shown), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  };
  expect_escaped(tool("stats " + q(out_dir() + "/no") + esc + "[2J.prv"), "no\\x1b[2J.prv");
  expect_escaped(tool("st" + esc + "ats " + q(prv_[0])), "'st\\x1bats'");
  expect_escaped(tool("svg " + q(prv_[0]) + " --width 1" + esc), "1\\x1b");
  const std::string garbage = out_dir() + "/garbage.prv";
  std::ofstream(garbage) << "#Paraver \x1b]0;owned\x07(01/01/70 at 00:00):1000_ns:0:1:1(2:0)\n";
  expect_escaped(tool("stats " + q(garbage)), "\\x1b]0;owned\\x07");
}

TEST_F(JouleTraceCli, GarbageFilesAreRejectedByName) {
  const std::string header = read_file(prv_[0]).substr(0, read_file(prv_[0]).find('\n'));
  const std::vector<std::pair<std::string, std::string>> files = {
      {"text.prv", "hello, world\n"},
      {"badrecord.prv", header + "\n1:1:1:1:1:0:100:1\n2:1:1:1:1:abc:93000001:2\n"},
      {"cut.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,"},
      {"notatrace.json", "{\"hello\": [1, 2, 3]}"},
      {"empty.json", ""},
      {"binary", std::string("\x7f"
                             "ELF\0\1\2\3\xff\xfe garbage",
                             18)},
  };
  for (const auto& [name, text] : files) {
    SCOPED_TRACE(name);
    const std::string path = out_dir() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    expect_failure(tool("svg " + q(path)), path);
    expect_failure(tool("html " + q(path)), path);
    expect_failure(tool("stats " + q(path)), path);
    EXPECT_FALSE(fs::exists(with_ext(path, ".svg"))) << "no output on failure";
  }
  const std::string bad = out_dir() + "/badrecord.prv";
  const Result r = tool("merge -o " + q(out_dir() + "/m") + " " + q(prv_[0]) + " " + q(bad));
  expect_failure(r, bad);
  EXPECT_FALSE(fs::exists(out_dir() + "/m.prv")) << "nothing written when an input is bad";
}

TEST(JouleTraceOverhead, PrintsEveryMode) {
  const Result r =
      run(std::string(JOULE_TRACE_OVERHEAD_BIN) + " --tasks 3000 --runs 1 --workers 1");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* mode : {"none", "paraver", "chrome"}) {
    std::smatch m;
    const std::regex row(std::string(R"(\| 1 \| )") + mode +
                         R"( \| ([0-9.]+) \| ([0-9]+) \| ([0-9.]+)x \| ([0-9.]+) \| ([0-9.]+) \|)");
    ASSERT_TRUE(std::regex_search(r.out, m, row)) << mode << "\n" << r.out;
    EXPECT_GT(std::stod(m[1]), 0.0) << mode;
    if (std::string(mode) != "none") {
      EXPECT_GT(std::stod(m[5]), 0.0) << mode << ": trace size";
    }
  }
}

}  // namespace
