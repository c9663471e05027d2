#include "trace_io.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace joule::trace_cli {
namespace {

namespace fs = std::filesystem;

// Label ids are small indices; load_paraver ignores .pcf names above this.
constexpr std::uint32_t kMaxLabelId = 1000000;

void check_labels(const std::string& path, const trace_format::TraceModel& m) {
  for (const trace_format::Row& r : m.rows)
    for (const trace_format::Slice& s : r.tasks)
      if (s.what > kMaxLabelId)
        throw ToolError(path + ": task label id " + std::to_string(s.what) +
                        " out of range (not a joule trace?)");
}

}  // namespace

trace_format::TraceModel load_trace_file(const std::string& path) {
  trace_format::TraceModel m = naming_trace(path, [&] { return trace_format::load_trace(path); });
  check_labels(path, m);
  if (m.rows.empty()) throw ToolError(path + ": no threads or events found (not a joule trace?)");
  return m;
}

TraceFormat detect_format(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".prv") return TraceFormat::kParaver;
  if (ext == ".json") return TraceFormat::kChrome;
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  return first.rfind("#Paraver", 0) == 0 ? TraceFormat::kParaver : TraceFormat::kChrome;
}

std::string replace_extension(const std::string& path, const std::string& ext) {
  return fs::path(path).replace_extension(ext).string();
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw ToolError(path + ": cannot write: " + std::strerror(errno));
  out << text;
  out.close();
  if (!out) throw ToolError(path + ": write failed: " + std::strerror(errno));
}

std::string describe_process(const trace_format::Process& p) {
  std::string s = p.rank >= 0 ? "rank " + std::to_string(p.rank) + ", " : "";
  s += "pid " + std::to_string(p.pid);
  return p.host.empty() ? s : s + ", host " + p.host;
}

}  // namespace joule::trace_cli
