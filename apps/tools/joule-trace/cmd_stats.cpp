// joule-trace stats TRACE: the POP metrics per process (and for the job when
// the trace holds several processes) and the per-label task table, as text.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "trace_io.hpp"

namespace joule::trace_cli {
namespace {

namespace tf = joule::trace_format;

constexpr const char* kLegend =
    "POP metrics over each process's workers (useful = time in outermost task bodies):\n"
    "  par_eff   parallel efficiency      = useful / (workers x elapsed) = load_bal x comm_eff\n"
    "  load_bal  load balance             = avg useful / max useful over workers\n"
    "  comm_eff  communication efficiency = max useful / elapsed\n";

void print_header(const std::string& path, const tf::TraceModel& m) {
  std::printf("trace %s: %zu process%s, %zu threads, %.6f s\n", path.c_str(), m.processes.size(),
              m.processes.size() == 1 ? "" : "es", m.rows.size(), double(m.t1 - m.t0) * 1e-9);
  for (const tf::Process& p : m.processes) std::printf("  %s\n", describe_process(p).c_str());
}

void run_stats(const std::string& path) {
  const tf::TraceModel m = load_trace_file(path);
  const tf::TraceSummary summary = naming_trace(path, [&] { return tf::summarize(m); });
  print_header(path, m);
  std::fputs(kLegend, stdout);
  std::fflush(stdout);
  tf::print_summary(summary, std::cout);
  if (summary.job.units == 0)
    std::printf("note: no thread is known as a worker, so the POP metrics are empty%s\n",
                detect_format(path) == TraceFormat::kParaver
                    ? " (is the .info file beside the .prv?)"
                    : "");
  std::cout.flush();
  if (!std::cout || std::ferror(stdout)) throw ToolError("cannot write to standard output");
}

}  // namespace

void add_stats_command(CLI::App& app) {
  CLI::App* cmd =
      app.add_subcommand("stats", "print the POP metrics and the tasks by label as text tables");
  auto path = std::make_shared<std::string>();
  cmd->add_option("TRACE", *path, "the trace (.prv or .json)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->callback([path] { run_stats(*path); });
}

}  // namespace joule::trace_cli
