// The one logger of joule: every layer writes its stderr messages here.
// Each line is "joule: <msg>" ("joule: warning: <msg>" for warnings,
// "joule: debug: <msg>" for debug lines), formatted first and written with
// one write(2), so lines of different threads never interleave.
#pragma once

#include <string_view>

namespace joule::core {

enum class LogLevel : int { error = 0, warning = 1, info = 2, debug = 3 };

// Lines above the threshold are dropped; the default is info.
void set_log_level(LogLevel level);
LogLevel log_level();
bool log_enabled(LogLevel level);

void log(LogLevel level, std::string_view msg);
inline void log_error(std::string_view msg) { log(LogLevel::error, msg); }
inline void log_warn(std::string_view msg) { log(LogLevel::warning, msg); }
inline void log_info(std::string_view msg) { log(LogLevel::info, msg); }
inline void log_debug(std::string_view msg) { log(LogLevel::debug, msg); }

// A warning printed the first time `key` is seen in this process (thread-safe);
// true if it was printed.
bool warn_once(std::string_view key, std::string_view msg);
// Forgets which keys were seen (tests).
void reset_warn_once();

}  // namespace joule::core
