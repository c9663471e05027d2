// Helpers of the trace tests: a temporary directory, a small independent
// Paraver reader, an XML well-formedness checker and a workload that
// produces every kind of trace event.
#pragma once

#include <gtest/gtest.h>
#include <joule/joule.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "temp_dir.hpp"
#include "trace_api.hpp"

namespace trace_test {

namespace fs = std::filesystem;

// The tests' one temporary directory (tests/common/temp_dir.hpp).
using joule_test::TempDir;

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---- a minimal Paraver reader, independent of joule-trace's -------------
struct PrvLine {
  int type = 0;
  std::vector<long long> f;  // all numeric fields, f[0] = type
};
struct PrvFile {
  std::string header;
  int tasks = 0;
  std::vector<int> threads;  // per task
  long long ftime = 0;
  std::vector<PrvLine> lines;
};

// Parses the whole file; ADD_FAILURE()s on anything malformed.
PrvFile read_prv(const std::string& path);

// ---- XML ----------------------------------------------------------------
// "" if the text is well formed (one root, balanced and matching tags,
// quoted attributes, escaped '<' and '&'), else what is wrong.
std::string xml_error(const std::string& text);

// ---- the workload ---------------------------------------------------------
struct Expect {
  int alpha = 0, beta = 0, parent = 0, child = 0, events = 0, iterations = 0;
  int total() const { return alpha + beta + parent + child + events; }
};

// Starts a runtime with `settings`, runs labelled flat and nested tasks over
// a few iterations, emits one of each subsystem event from a task, stops.
Expect run_workload(std::vector<std::pair<std::string, std::string>> settings, int flat = 120,
                    int iterations = 3);

}  // namespace trace_test
