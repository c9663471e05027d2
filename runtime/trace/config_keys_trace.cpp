// Keys of observability (traces, report details). Each row sets a member of
// Config::trace.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "config.hpp"

namespace joule::trace {

using namespace joule::core;
namespace {

void set_format(Config& c, std::string_view v) {
  for (const char* f : {"none", "paraver", "chrome"}) {
    if (v == f) {
      c.trace.format = f;
      return;
    }
  }
  throw std::invalid_argument("unknown trace format");
}

void set_dir(Config& c, std::string_view v) {
  if (v.empty()) throw std::invalid_argument("empty directory");
  c.trace.dir = std::string(v);
}

}  // namespace

// Built at each call, not at static initialisation: api/ adds the sections
// from a static initialiser of its own.
std::vector<ConfigKey> trace_config_keys() {
  return {
      {"JOULE_TRACE", [] { return std::string("none, paraver, chrome"); },
       "write a trace: Paraver .prv/.pcf/.row or Chrome/Perfetto JSON (see docs/observability.md)",
       set_format, [](const Config& c) { return c.trace.format; }},
      {"JOULE_TRACE_DIR", [] { return std::string("a directory path (default: the current one)"); },
       "directory for trace files, named joule-<rank or pid>.*", set_dir,
       [](const Config& c) { return c.trace.dir; }},
      {"JOULE_TRACE_BUFFER_KB", [] { return std::string("an integer 16..1048576 (KiB)"); },
       "per-thread trace buffer; a full buffer is flushed to disk by its own thread",
       [](Config& c, std::string_view v) { c.trace.buffer_kb = int(parse_int(v, 16, 1048576)); },
       [](const Config& c) { return std::to_string(c.trace.buffer_kb); }},
      {"JOULE_TRACE_RANK",
       [] { return std::string("an integer -1..16777215 (-1: from the launcher)"); },
       "MPI rank for trace file names; -1 reads OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID",
       [](Config& c, std::string_view v) { c.trace.rank = int(parse_int(v, -1, 16777215)); },
       [](const Config& c) { return std::to_string(c.trace.rank); }},
  };
}

}  // namespace joule::trace
