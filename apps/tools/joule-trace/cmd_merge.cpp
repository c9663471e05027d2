// joule-trace merge [-o OUT] TRACE...: the per-process traces of one MPI run
// into one trace (merge.hpp does the work). The inputs are read first, so a
// bad one is reported before anything is written, and the merged trace is
// read back to show what it holds.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "merge.hpp"
#include "trace_io.hpp"

namespace joule::trace_cli {
namespace {

namespace tf = joule::trace_format;
namespace fs = std::filesystem;

struct MergeArgs {
  std::string output;  // "": "merged" beside the first trace
  std::vector<std::string> traces;
};

const char* format_name(TraceFormat f) {
  return f == TraceFormat::kParaver ? "Paraver" : "Chrome JSON";
}

// Every input loads, holds one process, and all share the first one's format.
TraceFormat check_inputs(const std::vector<std::string>& traces) {
  const TraceFormat format = detect_format(traces.front());
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const std::string& t = traces[i];
    for (std::size_t j = 0; j < i; ++j)
      if (same_file(t, traces[j])) throw ToolError(t + ": given twice (also as " + traces[j] + ")");
    if (detect_format(t) != format)
      throw ToolError(t + ": is not a " + format_name(format) + " trace like " + traces.front() +
                      "; merge traces of one format");
    const tf::TraceModel m = load_trace_file(t);
    if (m.processes.size() != 1)
      throw ToolError(t + ": already merged (" + std::to_string(m.processes.size()) +
                      " processes); merge the per-process traces");
  }
  return format;
}

// Paraver: OUT is a base name (a trailing .prv is dropped); Chrome: OUT gets
// .json unless it has it.
std::string output_name(const MergeArgs& a, TraceFormat format) {
  std::string out = a.output;
  if (out.empty()) out = (fs::path(a.traces.front()).parent_path() / "merged").string();
  const std::string ext = fs::path(out).extension().string();
  if (format == TraceFormat::kParaver) return ext == ".prv" ? replace_extension(out, "") : out;
  return ext == ".json" ? out : out + ".json";
}

std::vector<std::string> merge(const MergeArgs& a, TraceFormat format, const std::string& out) {
  try {
    if (format == TraceFormat::kParaver) return tf::merge_paraver(a.traces, out);
    tf::merge_chrome(a.traces, out);
    return {out};
  } catch (const std::exception& e) {
    throw ToolError(std::string("merge: ") + e.what());
  }
}

void run_merge(const MergeArgs& a) {
  const TraceFormat format = check_inputs(a.traces);
  const std::string out = output_name(a, format);
  const std::string first = format == TraceFormat::kParaver ? out + ".prv" : out;
  for (const auto& t : a.traces)
    if (same_file(first, t)) throw ToolError(first + ": is one of the inputs; name another -o");
  const std::vector<std::string> written = merge(a, format, out);
  const tf::TraceModel m = load_trace_file(written.front());
  std::printf("merged %zu trace%s (%s) into", a.traces.size(), a.traces.size() == 1 ? "" : "s",
              format_name(format));
  for (const auto& w : written) std::printf(" %s", w.c_str());
  std::printf("\n");
  for (std::size_t i = 0; i < m.processes.size(); ++i)
    std::printf("  process %zu: %s\n", i, describe_process(m.processes[i]).c_str());
}

}  // namespace

void add_merge_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "merge", "merge the per-process traces of one MPI run into one trace, ordered by rank");
  auto a = std::make_shared<MergeArgs>();
  cmd->add_option("-o,--output", a->output,
                  "output: Paraver base name (OUT.prv .pcf .row .info) or Chrome OUT.json "
                  "(default: 'merged' beside the first TRACE)")
      ->type_name("OUT");
  cmd->add_option("TRACE", a->traces, "the per-process traces, all .prv or all .json")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->callback([a] { run_merge(*a); });
}

}  // namespace joule::trace_cli
