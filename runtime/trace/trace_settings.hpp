// The trace subsystem's settings (keys in config_keys_trace.cpp;
// docs/observability.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "choices.hpp"
#include "config.hpp"

namespace joule::trace {

enum class TraceFormat { none, paraver, chrome };
inline constexpr std::pair<const char*, TraceFormat> kTraceFormats[] = {
    {"none", TraceFormat::none},
    {"paraver", TraceFormat::paraver},
    {"chrome", TraceFormat::chrome}};

struct TraceSettings {
  TraceFormat format = TraceFormat::none;  // JOULE_TRACE
  std::string dir = ".";                   // JOULE_TRACE_DIR: where trace files go
  int buffer_kb = 1024;                    // JOULE_TRACE_BUFFER_KB: per-thread buffer
  int rank = -1;                           // JOULE_TRACE_RANK: -1 = Config::launcher_rank()
};

// JOULE_TRACE, JOULE_TRACE_DIR, JOULE_TRACE_BUFFER_KB, JOULE_TRACE_RANK.
std::vector<core::ConfigKey> trace_config_keys();

}  // namespace joule::trace
