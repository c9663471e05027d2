// joule-trace subcommands. Each file adds its subcommand(s) to the CLI11 app
// and runs from the subcommand's callback; failures are thrown as ToolError
// (trace_io.hpp) and reported by main().
#pragma once

namespace CLI {
class App;
}

namespace joule::trace_cli {

// Exit statuses.
inline constexpr int kOk = 0;
inline constexpr int kFailed = 1;  // bad trace, unwritable output
inline constexpr int kUsage = 2;   // bad command line

void add_timeline_commands(CLI::App& app);  // svg, html (cmd_timeline.cpp)
void add_stats_command(CLI::App& app);      // cmd_stats.cpp
void add_merge_command(CLI::App& app);      // cmd_merge.cpp

}  // namespace joule::trace_cli
