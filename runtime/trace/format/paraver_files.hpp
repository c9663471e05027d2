// Reading the Paraver files joule writes: the .prv header and records, the
// .pcf names and joule's .info side file (per-process identity and the
// monotonic start time that lines processes up when merging).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace joule::trace_format {

struct PrvHeader {
  std::uint64_t ftime_ns = 0;
  std::vector<int> node_cpus;     // CPUs per node
  std::vector<int> task_threads;  // threads per task (application 1)
  std::vector<int> task_node;     // node of each task's threads (1-based)
  std::string date;               // as written between the parentheses
};
// Throws std::runtime_error, also on counts above the bounds (65536 threads
// in all, 65536 CPUs per node); the second form prefixes "path:1: ".
PrvHeader parse_prv_header(const std::string& line);
PrvHeader parse_prv_header(const std::string& line, const std::string& path);
std::string format_prv_header(const PrvHeader& h);

// One record split at ':' (no allocation; views into the line).
struct PrvRecord {
  int type = 0;                           // 1 state, 2 event, 3 communication; 0 for other lines
  std::vector<std::string_view> f;        // all fields, f[0] is the type
  std::int64_t num(std::size_t i) const;  // field i as an integer (throws)
};
bool split_prv(std::string_view line, PrvRecord& r);  // false for comments / blank

struct PcfNames {
  std::map<std::int64_t, std::string> types;
  std::map<std::int64_t, std::map<std::int64_t, std::string>> values;
};
PcfNames read_pcf(const std::string& path);  // empty if the file is missing

struct InfoFile {
  struct Proc {
    int task = 1, rank = -1;
    long pid = 0;
    std::string host = "localhost";
    std::uint64_t start_ns = 0, stop_ns = 0;  // CLOCK_MONOTONIC
    std::uint64_t offset_ns = 0;              // merged: where the process starts in the file
  };
  struct Thread {
    int task = 1, thread = 1, worker = -1, cpu = -1;
    bool guest = false;  // a worker on a borrowed CPU
  };
  std::vector<Proc> procs;
  std::vector<Thread> threads;
  bool present = false;
};
// present == false if missing; throws std::runtime_error ("path:line: ...")
// on a malformed thread line.
InfoFile read_info(const std::string& path);
void write_info(const InfoFile& info, const std::string& path);

// "dir/joule-1.prv" -> "dir/joule-1" + ext
std::string sibling(const std::string& prv_path, const std::string& ext);

}  // namespace joule::trace_format
