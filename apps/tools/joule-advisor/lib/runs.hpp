// Baseline runs: the measured configurations joule-advisor fits its model
// to, read from CSV (one run per row, a header names the columns) or JSON
// (an array of objects, bare or under "runs"). Every error names the file,
// the line and the column or key, and what would have been accepted.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "placement.hpp"

namespace joule::advisor {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Device { host, card };
Device parse_device(const std::string& name);  // throws std::invalid_argument
const char* device_name(Device d);

struct Run {
  Device device = Device::card;
  int threads = 0;  // threads placed (given, or cores × threads_per_core)
  card_affinity::Affinity placement = card_affinity::Affinity::compact;
  double freq_ghz = 0;
  double time_s = 0;
  double energy_j = 0;
  // Counters, when the run recorded them (summed over threads).
  std::optional<double> instructions, cycles, mem_stall_frac;
  std::string where;  // "file:line", for messages about this run
};

// The accepted column / key names, for messages and docs.
extern const char* const kRunColumns;

std::vector<Run> read_runs_csv(const std::string& path);
std::vector<Run> read_runs_json(const std::string& path);
// By extension: .json is JSON, anything else CSV.
std::vector<Run> read_runs(const std::string& path);

// Throws InputError at `where` unless `name` is one of kRunColumns.
void check_column(const std::string& name, const std::string& where);

// Builds a run from name/value text pairs; `where` prefixes every error.
// Shared by both readers so CSV and JSON accept exactly the same fields.
Run make_run(const std::vector<std::pair<std::string, std::string>>& fields,
             const std::string& where);

}  // namespace joule::advisor
