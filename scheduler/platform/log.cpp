#include "log.hpp"

#include <cstdio>
#include <mutex>
#include <set>

namespace joule::platform {
namespace {

std::mutex g_mu;
std::set<std::string>& seen() {
  static std::set<std::string> s;
  return s;
}

}  // namespace

bool warn_once(const std::string& key, const std::string& msg) {
  {
    std::lock_guard guard(g_mu);
    if (!seen().insert(key).second) return false;
  }
  std::fprintf(stderr, "joule: warning: %s\n", msg.c_str());
  return true;
}

void note(const std::string& msg) { std::fprintf(stderr, "joule: %s\n", msg.c_str()); }

void reset_warnings() {
  std::lock_guard guard(g_mu);
  seen().clear();
}

}  // namespace joule::platform
