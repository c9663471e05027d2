// joule-advisor's input checks (CSV and JSON: file:line, the column or key,
// the allowed values) and one end-to-end run of the command line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "run_command.hpp"
#include "runs.hpp"
#include "temp_dir.hpp"

namespace ja = joule::advisor;

namespace {

// The inputs and outputs of this file's tests, removed at exit.
const joule_test::TempDir& files() {
  static const joule_test::TempDir dir("advisor-input");
  return dir;
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = files().file(name);
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& path) {
  try {
    ja::read_runs(path);
  } catch (const ja::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

void expect_has(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

const char* kHeader = "device,threads,placement,freq_ghz,time_s,energy_j\n";

std::pair<int, std::string> run(const std::string& args) {
  return joule_test::run_status(std::string(JOULE_ADVISOR_EXE) + " " + args);
}

}  // namespace

TEST(AdvisorInput, CsvReadsRunsAndCoresTimesThreads) {
  const auto runs = ja::read_runs(
      write("ok.csv",
            "# baseline\ndevice,cores,threads_per_core,placement,freq_ghz,time_s,energy_j\n"
            "card,60,2,scatter,1.053,10.5,2000\n\nhost,8,1,compact,2.7,3,300\n"));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].threads, 120);
  EXPECT_EQ(runs[1].device, ja::Device::host);
  EXPECT_NE(runs[1].where.find("ok.csv:5"), std::string::npos);
}

TEST(AdvisorInput, CsvErrors) {
  expect_has(error_of(write("a.csv", "device,thread,placement\n")),
             "a.csv:1: unknown field 'thread'");
  expect_has(error_of(write("a.csv", "device,thread,placement\n")), "allowed: device, threads");
  const std::string missing = error_of(write("b.csv",
                                             "device,threads,placement,freq_ghz,time_s\n"
                                             "card,4,compact,1.0,3\n"));
  expect_has(missing, "b.csv:2: missing 'energy_j'");
  expect_has(error_of(write("c.csv", std::string(kHeader) + "card,4,compact,1.0,fast,30\n")),
             "c.csv:2: field 'time_s': 'fast' is not a number");
  expect_has(error_of(write("d.csv", std::string(kHeader) + "gpu,4,compact,1.0,3,30\n")),
             "d.csv:2: unknown device 'gpu' (allowed: host, card)");
  expect_has(error_of(write("e.csv", std::string(kHeader) + "card,4,spread,1.0,3,30\n")),
             "e.csv:2: unknown affinity 'spread' (allowed: compact, scatter, balanced)");
  expect_has(error_of(write("f.csv", std::string(kHeader) + "card,4,compact,1.0,3\n")),
             "f.csv:2: 5 fields, the header has 6");
  expect_has(error_of(write("g.csv", std::string(kHeader) + "card,2.5,compact,1.0,3,30\n")),
             "field 'threads': 2.5 must be an integer");
}

TEST(AdvisorInput, JsonRunsAndErrors) {
  const auto runs = ja::read_runs(
      write("ok.json",
            "{\"runs\": [\n {\"device\": \"card\", \"threads\": 4, \"placement\": "
            "\"compact\",\n  \"freq_ghz\": 1.053, \"time_s\": 2, \"energy_j\": 300}\n]}\n"));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].threads, 4);
  const std::string bad_key = error_of(
      write("k.json", "[\n {\"device\": \"card\"},\n {\"device\": \"card\", \"watts\": 3}\n]\n"));
  expect_has(bad_key, "k.json:2 (run 0): missing 'placement'");
  const std::string unknown =
      error_of(write("u.json", "[\n {\"device\": \"card\", \"watts\": 3}\n]\n"));
  expect_has(unknown, "u.json:2 (run 0): unknown field 'watts'");
  const std::string nan =
      error_of(write("n.json",
                     "[\n{\"device\": \"card\", \"threads\": 4, \"placement\": \"compact\",\n"
                     "\"freq_ghz\": 1, \"time_s\": \"slow\", \"energy_j\": 1},\n"
                     "{\"device\": \"card\", \"threads\": 4, \"placement\": \"compact\",\n"
                     "\"freq_ghz\": 1, \"time_s\": [1], \"energy_j\": 1}]\n"));
  expect_has(nan, "n.json:2 (run 0): field 'time_s': 'slow' is not a number");
  expect_has(error_of(write("p.json", "[\n{\"device\": \n")), "p.json:3: not valid JSON");
}

TEST(AdvisorInput, CommandLineEndToEnd) {
  std::string csv = std::string(kHeader);
  // A tiny card (4 × 2) whose runs follow T = 8/t·(1 + 0.3(τ−1)).
  csv +=
      "card,1,compact,1.0,8,800\ncard,2,compact,1.0,5.2,560\ncard,2,scatter,1.0,4,440\n"
      "card,4,scatter,1.0,2,240\ncard,8,compact,1.0,1.3,170\n";
  const std::string in = write("e2e.csv", csv);
  const std::string out_csv = files().file("e2e-out.csv");
  const std::string out_svg = files().file("e2e-out.svg");
  auto [rc, out] = run("advise " + in +
                       " --card-topology 'package:1 core:4 pu:2' --deadline 3 "
                       "--csv " +
                       out_csv + " --svg " + out_svg);
  EXPECT_EQ(rc, 0) << out;
  expect_has(out, "Pareto-optimal");
  expect_has(out, "best under the deadline: card");
  std::ifstream svg(out_svg);
  std::string first;
  std::getline(svg, first);
  expect_has(first, "<svg");
  std::ifstream table(out_csv);
  std::getline(table, first);
  EXPECT_EQ(first,
            "device,threads,placement,cores,threads_per_core,freq_ghz,time_s,energy_j,"
            "power_w,pareto");
  std::tie(rc, out) = run("advise " + write("bad.csv", "device,speed\n"));
  EXPECT_EQ(rc, 1);
  expect_has(out, "bad.csv:1: unknown field 'speed'");
  std::tie(rc, out) = run("advise " + in + " --card-topology 'package:1 core:2 pu:2'");
  EXPECT_EQ(rc, 1);
  expect_has(out, "8 threads, but the card (package:1 core:2 pu:2) has 4 PUs");
}

// Numbers that are not finite, and topologies too large to search, are
// refused up front (nan used to pass CLI11's PositiveNumber; a 100 000-core
// card hung).
TEST(AdvisorInput, NonFiniteNumbersAndHugeTopologiesAreRefused) {
  const std::string in = write("nan.csv", std::string(kHeader) + "card,1,compact,1.0,8,800\n");
  for (const char* opt :
       {"--deadline nan", "--deadline inf", "--energy-budget -nan", "--card-freqs 1.0,nan"}) {
    auto [rc, out] = run("advise " + in + " --card-topology 'package:1 core:4 pu:2' " + opt);
    EXPECT_EQ(rc, 2) << opt << "\n" << out;
    expect_has(out, "finite number > 0");
  }
  auto [rc, out] = run("advise " + in + " --card-topology 'package:1 core:100000 pu:4'");
  EXPECT_EQ(rc, 1) << out;
  expect_has(out, "allowed: 1..4096 PUs");
}
