// Keys of observability: traces and their files.
#include <stdexcept>
#include <string>

#include "key_table.hpp"
#include "trace_settings.hpp"

namespace joule::trace {

std::vector<core::ConfigKey> trace_config_keys() {
  using S = TraceSettings;
  core::KeyTable<S> t;
  t.choice("JOULE_TRACE", &S::format, core::Choices<TraceFormat>(kTraceFormats),
           "write a trace: Paraver .prv/.pcf/.row or Chrome/Perfetto JSON (see "
           "docs/observability.md)");
  t.custom(
      "JOULE_TRACE_DIR", "path", "a directory path (default: the current one)",
      "directory for trace files, named joule-<rank or pid>.*",
      [](S& s, std::string_view v) {
        if (v.empty()) throw std::invalid_argument("empty directory");
        s.dir = std::string(v);
      },
      [](const S& s) { return s.dir; });
  t.integer("JOULE_TRACE_BUFFER_KB", &S::buffer_kb, 16, 1048576,
            "per-thread trace buffer; a full buffer is flushed to disk by its own thread", "KiB");
  t.integer("JOULE_TRACE_RANK", &S::rank, -1, 16777215,
            "MPI rank for trace file names; -1 reads OMPI_COMM_WORLD_RANK, PMI_RANK or "
            "SLURM_PROCID",
            "-1: from the launcher");
  return t.keys();
}

}  // namespace joule::trace
