// The subcommands' shared CLI11 step: parse, and say how to exit when
// parsing ends the command (--help prints and exits 0, a bad option prints
// CLI11's message and exits kUsage).
#pragma once

#include <CLI/CLI.hpp>

#include "commands.hpp"

namespace joule::ctl {

// True: go on. False: return *rc from the command now.
inline bool parse_options(CLI::App& app, int argc, char** argv, int* rc) {
  try {
    app.parse(argc, argv);
    return true;
  } catch (const CLI::ParseError& e) {
    *rc = app.exit(e) == 0 ? kOk : kUsage;
    return false;
  }
}

}  // namespace joule::ctl
