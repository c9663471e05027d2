// joule-trace <command> ...: timelines, POP metrics and merging of the traces
// joule writes with JOULE_TRACE=paraver|chrome. See docs/observability.md.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

#include "commands.hpp"
#include "text.hpp"

namespace {

using namespace joule::trace_cli;

std::string failure_message(const CLI::App*, const CLI::Error& e) {
  return "joule-trace: error: " + joule::core::escape_lines(e.what()) +
         "\nRun 'joule-trace --help' or 'joule-trace <command> --help' for the options.\n";
}

void build(CLI::App& app) {
  app.failure_message(failure_message);  // before the subcommands, which copy it
  app.require_subcommand(1);
  app.footer(
      "TRACE is a .prv (read with the .pcf and .info beside it) or a Chrome .json written by "
      "joule.\nSee docs/observability.md, section joule-trace.");
  add_timeline_commands(app);
  add_stats_command(app);
  add_merge_command(app);
}

// CLI11 answers a first word that is no command with "A subcommand is
// required"; name the word instead.
void check_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == argv[1]) return;
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  throw CLI::ValidationError("unknown command '" + joule::core::escape_text(argv[1]) +
                             "' (commands: " + names + ")");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Draws, summarises and merges joule trace files.", "joule-trace");
  try {
    build(app);
    check_command(app, argc, argv);
    app.parse(argc, argv);  // runs the chosen subcommand's callback
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "joule-trace: error: %s\n", joule::core::escape_lines(e.what()).c_str());
    return kFailed;
  }
  return kOk;
}
