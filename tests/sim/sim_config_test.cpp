// Scenario errors name the key, where it came from (file:line or --set) and
// what is allowed.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <fstream>

#include "sim_test_util.hpp"
#include "temp_dir.hpp"

namespace joule::sim::test {
namespace {

TEST(SimConfig, UnknownKeyListsTheKeys) {
  const auto e = error_of("[platform]\nchips = 2\nchipz = 3\n");
  EXPECT_TRUE(has(e, ".toml:3: unknown key 'platform.chipz'")) << e;
  EXPECT_TRUE(has(e, "platform.cores_per_chip")) << e;
}

TEST(SimConfig, WrongTypeAndRangeNameFileLine) {
  auto e = error_of("[platform]\n\nchips = \"many\"\n");
  EXPECT_TRUE(has(e, ".toml:3: platform.chips: 'many' is not")) << e;
  EXPECT_TRUE(has(e, "allowed: integer 1..4096")) << e;
  e = error_of("[workload]\nsteps = 0\n");
  EXPECT_TRUE(has(e, ".toml:2: workload.steps")) << e;
}

TEST(SimConfig, BadChoiceListsTheChoices) {
  const auto e = error_of("[policy]\nname = \"fg\"\n");
  EXPECT_TRUE(has(e, "'fg' is not one of none | fg-energylb | cg-energylb")) << e;
  const auto q = error_of("", {"policy.quantise=floor"});
  EXPECT_TRUE(
      has(q, "--set policy.quantise=floor: policy.quantise: 'floor' is not one of round | ceil"))
      << q;
}

TEST(SimConfig, SyntaxErrorsAndValues) {
  EXPECT_TRUE(has(error_of("[platform\nchips = 2\n"), ".toml:1:"));
  EXPECT_TRUE(has(error_of("chips = 2\n"), "must be a section"));
  EXPECT_TRUE(has(error_of("", {"platform.power=quadratic:1,2"}), "linear:a,b | cubic:Ps,k"));
  EXPECT_TRUE(has(error_of("", {"platform.pstates_ghz=2.4,1.2"}), "not ascending"));
  EXPECT_TRUE(has(error_of("", {"platform.power=table:1,2"}), "table has 2 entries"));
  EXPECT_THROW(setting_from_arg("policy.name"), ConfigError);
}

TEST(SimConfig, ValuesParse) {
  const auto s =
      scenario("", {"platform.pstates_ghz=1.0-2.0:0.25", "platform.power=cubic:18.13,1.3145",
                    "platform.wait_power=3.5", "workload.loads=1,2,3,4"});
  EXPECT_EQ(s.platform.pstates_ghz, (std::vector<double>{1.0, 1.25, 1.5, 1.75, 2.0}));
  EXPECT_NEAR(s.platform.power.watts(2.4, 0), 36.3, 0.01);  // cubic fit, Padoin's §5.1.1 powers
  EXPECT_FALSE(s.platform.wait_busy);
  int status = 0;
  const auto out = run_tool("run --set platform.chipz=2", &status);
  EXPECT_NE(status, 0);
  EXPECT_TRUE(has(out, "--set platform.chipz=2: unknown key")) << out;
}

// At the old maxima (4096 x 1024 cores, 10^7 objects, 10^8 steps, degree
// 1000) a run took gigabytes; the size of a run is bounded, and the error
// names the keys and the limit.
TEST(SimConfig, SizeOfTheRunIsBounded) {
  const std::vector<std::string> base = {"workload.loads=1,2,3,4"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.end(), base.begin(), base.end());
    return error_of("", more);
  };
  EXPECT_EQ(with({}), "");
  auto e = with({"platform.chips=4096", "platform.cores_per_chip=1024"});
  EXPECT_TRUE(has(e,
                  "platform.chips x platform.cores_per_chip = 4194304 cores; allowed: at "
                  "most 65536"))
      << e;
  e = with({"workload.objects=1000000", "workload.steps=10000000"});
  EXPECT_TRUE(has(e,
                  "workload.steps x max(workload.objects, cores) = 10000000000000; allowed: "
                  "at most 2000000000"))
      << e;
  e = with({"workload.objects=1000000", "network.graph=ring", "network.degree=1000"});
  EXPECT_TRUE(has(e, "workload.objects x network.degree")) << e;
  EXPECT_TRUE(has(e, "links; allowed: at most 2000000")) << e;
  e = with({"workload.objects=10000000"});
  EXPECT_TRUE(has(e, "allowed: integer 0..1000000")) << e;
  e = with({"workload.steps=100000000"});
  EXPECT_TRUE(has(e, "allowed: integer 1..10000000")) << e;
}

// A directory for the scenario is a usage error (exit 2), not CLI11's 105.
TEST(SimConfig, ADirectoryIsNotAScenario) {
  const joule_test::TempDir dir;
  int status = 0;
  const std::string out = run_tool("run " + dir.path(), &status);
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_TRUE(has(out, "is a directory; expected a scenario TOML file")) << out;
}

// Control bytes in a scenario file's value, in its key and in a --set
// argument come back as \xNN, never raw (an ESC would drive the terminal).
TEST(SimConfig, ErrorsEscapeControlBytes) {
  const joule_test::TempDir dir;
  const std::string path = dir.file("scenario.toml");
  std::ofstream(path) << "[policy]\nname = \"x\\u001b[31mred\"\n";
  int status = 0;
  std::string out = run_tool("run " + path, &status);
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_TRUE(has(out, "'x\\x1b[31mred'")) << out;
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;

  std::ofstream(path) << "[policy]\n\"na\\u0007me\" = \"none\"\n";
  out = run_tool("run " + path, &status);
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_TRUE(has(out, "unknown key 'policy.na\\x07me'")) << out;
  EXPECT_EQ(out.find('\x07'), std::string::npos) << out;

  out = run_tool("run " + path + " --set \"$(printf 'bad\\033key')\"", &status);
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_TRUE(has(out, "--set bad\\x1bkey: expected key=value")) << out;
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
}

}  // namespace
}  // namespace joule::sim::test
