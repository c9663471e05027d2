// Helpers of the joulecc tests: run a command, temporary directories, files.
#pragma once

#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace shim {

struct Result {
  int status = -1;     // exit status, or 128 + signal
  std::string output;  // stdout and stderr together
};

// Runs a shell command line (sh -c) and captures its output.
Result run(const std::string& command);
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
bool file_exists(const std::string& path);
// A fresh directory under $TMPDIR (or /tmp), removed by the destructor; the
// tests' one helper (tests/common/temp_dir.hpp).
using TempDir = joule_test::TempDir;
// Whether a program is on PATH.
bool have_program(const std::string& name);
std::vector<std::string> split_lines(const std::string& text);
// Single-quoted for sh.
std::string quote(const std::string& s);

}  // namespace shim
