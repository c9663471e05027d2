// The command line every application shares (CLI11): the problem size and
// block size, the worker count and the check switch, the check that the
// block size divides the size (naming the allowed values), and the parse
// that turns CLI11's errors into the apps' exit status 2.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <functional>
#include <string>

namespace apps {

struct CommonOptions {
  std::size_t n = 0;
  std::size_t bs = 0;
  int workers = 0;  // 0: the runtime's default, one per CPU of the affinity mask
  bool no_check = false;
  bool check() const { return !no_check; }
};

// --n, --bs, --workers, --no-check; `what` names a block ("block", "tile").
void add_common_options(CLI::App& app, CommonOptions& o, const std::string& what);

// Throws CLI::ValidationError naming --bs and every divisor of n.
void check_block_divides(const CommonOptions& o, const std::string& what);

// Parses argv and runs `validate` (which may throw CLI::ValidationError).
// Returns -1 to go on, or the exit status: 0 after --help, 2 on an error
// (the message is printed).
int parse_command_line(CLI::App& app, int argc, char** argv, const std::function<void()>& validate);

// The check field of the result line: "skipped", "ok" or "FAILED".
inline const char* check_word(const CommonOptions& o, bool ok) {
  return !o.check() ? "skipped" : ok ? "ok" : "FAILED";
}

// The CPUs of this process's affinity mask.
int cpus_in_mask();

}  // namespace apps
