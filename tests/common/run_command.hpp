// Runs a shell command and returns its output (stdout and stderr) followed by
// "[exit N]", so a test can show everything a failing child printed.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <utility>

namespace joule_test {

inline std::string run_command(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return "popen failed";
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int rc = ::pclose(p);
  return out + "\n[exit " + std::to_string(WEXITSTATUS(rc)) + "]";
}

// The command's exit status and its output (stdout and stderr).
inline std::pair<int, std::string> run_status(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return {-1, "popen failed"};
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  return {WEXITSTATUS(::pclose(p)), out};
}

}  // namespace joule_test
