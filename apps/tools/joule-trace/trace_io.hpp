// What the joule-trace subcommands share: loading a trace with an error that
// names the file, output names and writing files.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "trace_model.hpp"

namespace joule::trace_cli {

// A failure reported as "joule-trace: error: <what>" with exit status kFailed.
struct ToolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class TraceFormat { kParaver, kChrome };

// Runs f(); any exception but a ToolError becomes a ToolError that starts
// names `path` (the trace being read, drawn or summarised).
template <class F>
auto naming_trace(const std::string& path, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const ToolError&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw ToolError(path + ": out of memory (ids or counts in the trace out of range?)");
  } catch (const std::exception& e) {
    const std::string what = e.what();
    throw ToolError(what.find(path) != std::string::npos ? what : path + ": " + what);
  }
}

// Loads a .prv (with its .pcf / .info) or Chrome .json with the trace-format
// library. Any failure, a file without a single thread (valid JSON that is
// not a trace) and a task label id beyond what joule writes become a
// ToolError whose message names the path.
trace_format::TraceModel load_trace_file(const std::string& path);

// By extension (.prv, .json), else by the first line, as load_trace() decides.
TraceFormat detect_format(const std::string& path);

// "dir/joule-1.json", ".svg" -> "dir/joule-1.svg"; a name without an
// extension gets `ext` appended.
std::string replace_extension(const std::string& path, const std::string& ext);

// True when both name one existing file.
bool same_file(const std::string& a, const std::string& b);

// Writes `text` to `path` (replacing it); ToolError if that fails.
void write_text_file(const std::string& path, const std::string& text);

// "rank 3, pid 1234, host node-a" (without rank or host when unknown).
std::string describe_process(const trace_format::Process& p);

}  // namespace joule::trace_cli
