// The unprivileged users the node-service tests run clients as (created on
// first use when the test runs as root), and a bounded poll for what a
// daemon or child does eventually.
#pragma once

#include <pwd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace joule::test {

inline constexpr const char* kUser = "jouletest";    // granted in the tests' access files
inline constexpr const char* kOther = "jouletest2";  // in none of them

// True when `name` exists, creating it (a system user without a home) if not.
inline bool ensure_user(const std::string& name) {
  if (::getpwnam(name.c_str())) return true;
  const std::string cmd = "useradd --system --no-create-home " + name + " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0 && ::getpwnam(name.c_str());
}

inline std::string slurp_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Polls `pred` every 10 ms for up to `ms`.
template <class F>
bool eventually(F pred, int ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace joule::test
