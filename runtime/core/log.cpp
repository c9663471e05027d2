#include "log.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <functional>
#include <mutex>
#include <set>
#include <string>

namespace joule::core {
namespace {

std::atomic<int> g_level{int(LogLevel::info)};

std::mutex& once_mutex() {
  static std::mutex mu;
  return mu;
}

std::set<std::string, std::less<>>& once_keys() {
  static std::set<std::string, std::less<>> keys;
  return keys;
}

std::string_view tag(LogLevel level) {
  switch (level) {
    case LogLevel::warning:
      return "warning: ";
    case LogLevel::debug:
      return "debug: ";
    default:
      return "";
  }
}

// One write(2) for the whole line; only a short write loops.
void write_line(const std::string& line) {
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= std::size_t(n);
  }
}

}  // namespace

void set_log_level(LogLevel level) { g_level.store(int(level), std::memory_order_relaxed); }

LogLevel log_level() { return LogLevel(g_level.load(std::memory_order_relaxed)); }

bool log_enabled(LogLevel level) { return int(level) <= g_level.load(std::memory_order_relaxed); }

void log(LogLevel level, std::string_view msg) {
  if (!log_enabled(level)) return;
  const std::string_view t = tag(level);
  std::string line;
  line.reserve(7 + t.size() + msg.size() + 1);
  line.append("joule: ").append(t).append(msg).push_back('\n');
  write_line(line);
}

bool warn_once(std::string_view key, std::string_view msg) {
  if (!log_enabled(LogLevel::warning)) return false;
  {
    std::lock_guard guard(once_mutex());
    if (!once_keys().emplace(key).second) return false;
  }
  log(LogLevel::warning, msg);
  return true;
}

void reset_warn_once() {
  std::lock_guard guard(once_mutex());
  once_keys().clear();
}

}  // namespace joule::core
