// Keys of observability: traces and their files.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "key_table.hpp"
#include "trace_settings.hpp"

namespace joule::trace {
namespace {

// The trace directory must exist, or be one new folder in an existing one:
// a mistyped parent would otherwise grow a tree of folders nobody asked for.
void check_trace_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::path p = fs::path(dir).lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  std::error_code ec;
  if (fs::exists(p, ec)) {
    if (!fs::is_directory(p, ec)) throw std::invalid_argument("exists and is not a directory");
    return;
  }
  const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec))
    throw std::invalid_argument("its parent " + core::escape_text(parent.string()) +
                                " is not an existing directory (only the last component is "
                                "created)");
}

}  // namespace

std::vector<core::ConfigKey> trace_config_keys() {
  using S = TraceSettings;
  core::KeyTable<S> t;
  t.choice("JOULE_TRACE", &S::format, core::Choices<TraceFormat>(kTraceFormats),
           "write a trace: Paraver .prv/.pcf/.row or Chrome/Perfetto JSON (see "
           "docs/observability.md)");
  t.custom(
      "JOULE_TRACE_DIR", "path",
      "a directory path: an existing directory, or a new one in an existing directory "
      "(default: the current one)",
      "directory for trace files, named joule-<rank or pid>.*; only its last component is "
      "created",
      [](S& s, std::string_view v) {
        if (v.empty()) throw std::invalid_argument("empty directory");
        check_trace_dir(std::string(v));
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
