// joule-sim: run a scenario (TOML + --set overrides) through the energy
// policies on a modelled platform (docs/simulator.md).
//   joule-sim run [scenario.toml] [--set key=value]... [--csv f] [--svg f]
//   joule-sim compare [scenario.toml] [--set ...] [--policies none,fg-energylb] [--guard both]
//   joule-sim split [scenario.toml] [--set ...]
// With lending on, `run` also runs the same ranks with lending off.
//   joule-sim keys
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "lib/engine.hpp"
#include "lib/report.hpp"
#include "lib/scenario.hpp"
#include "text.hpp"

namespace {

using namespace joule::sim;

struct Args {
  std::string file;
  std::vector<std::string> sets;
  std::string csv, svg, policies = "none,fg-energylb,cg-energylb";
  std::string guard = "scenario";  // compare: scenario | both
  bool no_baseline = false;
};

Scenario load(const Args& a) {
  std::vector<Setting> settings;
  if (!a.file.empty()) settings = settings_from_toml(a.file);
  for (const auto& s : a.sets) settings.push_back(setting_from_arg(s));
  return make_scenario(settings);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text))
    throw std::runtime_error("cannot write " + joule::core::escape_text(path));
}

int cmd_run(const Args& a) {
  const Scenario s = load(a);
  const bool record = !a.csv.empty() || !a.svg.empty();
  const RunResult r = run_scenario(s, record);
  std::cout << result_line(r) << "\n";
  if (s.workload.kind == "split") std::cout << split_line(r) << "\n";
  if (s.lending.active()) std::cout << lending_line(s, r) << "\n";
  if (s.network.graph != "none") std::cout << network_line(r) << "\n";
  if (r.guarded) std::cout << guard_line(r) << "\n";
  if (!a.no_baseline && s.lending.lewi) {  // the same ranks without lending
    Scenario off = s;
    off.lending.lewi = false;
    std::cout << lending_delta_line(r, run_scenario(off)) << "\n";
  }
  if (!a.no_baseline && s.policy.name != "none" && s.workload.kind != "split") {
    const RunResult b = run_scenario(baseline_of(s));
    std::cout << delta_line(r, b) << "\n";
    if (s.platform.tmax_c > 0 || s.room.active()) std::cout << thermal_line(r, b) << "\n";
  }
  if (!a.csv.empty()) write_file(a.csv, steps_csv(r));
  if (!a.svg.empty()) write_file(a.svg, steps_svg(r));
  return 0;
}

// One row of compare: the policy, with the guard as `guard` says ("" = the scenario's).
RunResult run_one(const Args& a, const std::string& policy, const std::string& guard) {
  Args one = a;
  one.sets.push_back("policy.name=" + policy);
  if (!guard.empty()) one.sets.push_back("policy.guard=" + guard);
  RunResult r = run_scenario(load(one));
  if (!guard.empty() && policy != "none") r.policy += guard == "true" ? "+guard" : "-guard";
  return r;
}

// --guard both: every policy but none twice, without then with the guard.
int cmd_compare(const Args& a) {
  load(a);  // errors in the scenario before any run
  std::vector<RunResult> runs;
  const std::string& list = a.policies;
  for (std::size_t at = 0; at <= list.size();) {
    const auto comma = std::min(list.find(',', at), list.size());
    const std::string policy = list.substr(at, comma - at);
    if (a.guard == "both" && policy != "none") {
      for (const char* g : {"false", "true"}) runs.push_back(run_one(a, policy, g));
    } else {
      runs.push_back(run_one(a, policy, ""));
    }
    at = comma + 1;
  }
  std::cout << compare_table(runs);
  for (const auto& r : runs)
    if (r.guarded) std::cout << r.policy << " " << guard_line(r) << "\n";
  return 0;
}

// Cabrera et al.: the even split, the time-proportional one and the splitter
// under both objectives, with ratios to the even split.
int cmd_split(const Args& a) {
  std::vector<RunResult> runs;
  for (const char* set : {"split.method=even", "split.method=proportional",
                          "split.method=splitter,split.objective=time",
                          "split.method=splitter,split.objective=energy"}) {
    Args one = a;
    one.sets.push_back("workload.kind=split");
    const std::string both = set;
    const auto comma = both.find(',');
    one.sets.push_back(both.substr(0, comma));
    if (comma != std::string::npos) one.sets.push_back(both.substr(comma + 1));
    runs.push_back(run_scenario(load(one)));
  }
  std::cout << compare_table(runs);
  for (const auto& r : runs) std::cout << split_line(r) << "\n";
  return 0;
}

void add_common(CLI::App* cmd, Args& a) {
  cmd->add_option("scenario", a.file, "scenario TOML file")
      ->check(CLI::Validator(
          [](std::string& path) -> std::string {
            std::error_code ec;
            if (std::filesystem::is_directory(path, ec))
              return path + ": is a directory; expected a scenario TOML file";
            if (!std::filesystem::exists(path, ec))
              return path + ": no such file; expected a scenario TOML file";
            return {};
          },
          "FILE"));
  cmd->add_option("--set", a.sets, "override one key: section.key=value (repeatable)");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"joule-sim: energy policies on a modelled platform"};
  // Its messages quote argument values: never raw bytes on a terminal.
  app.failure_message([](const CLI::App* from, const CLI::Error& e) {
    return joule::core::escape_lines(CLI::FailureMessage::simple(from, e));
  });
  app.require_subcommand(1);
  Args a;
  auto* run = app.add_subcommand("run", "run a scenario (and policy none, for the deltas)");
  add_common(run, a);
  run->add_option("--csv", a.csv, "per-step CSV file");
  run->add_option("--svg", a.svg, "SVG of frequency and power over time");
  run->add_flag("--no-baseline", a.no_baseline, "skip the policy-none (or lending-off) run");
  auto* cmp = app.add_subcommand("compare", "run under several policies, ratios to the first");
  add_common(cmp, a);
  cmp->add_option("--policies", a.policies, "comma-separated, the first is the baseline");
  cmp->add_option("--guard", a.guard,
                  "scenario: policy.guard as the scenario says; both: each "
                  "policy but none without, then with the time guard")
      ->check(CLI::IsMember({"scenario", "both"}));
  auto* split = app.add_subcommand(
      "split", "Cabrera et al.'s splitter: even, proportional and splitter splits");
  add_common(split, a);
  auto* keys = app.add_subcommand("keys", "list every scenario key and its allowed values");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (105 for a failed check) would read as crashes; bad
    // input is 2, as for a bad scenario.
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (keys->parsed()) return std::cout << describe_keys(), 0;
    if (split->parsed()) return cmd_split(a);
    return run->parsed() ? cmd_run(a) : cmd_compare(a);
  } catch (const std::exception& e) {
    std::cerr << "joule-sim: " << joule::core::escape_lines(e.what()) << "\n";
    return 2;
  }
}
