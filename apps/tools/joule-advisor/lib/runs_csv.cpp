// CSV baseline runs: a header row of column names, then one run per row.
// Blank lines and lines starting with '#' are skipped; no quoting (the
// fields are names and numbers).
#include <fstream>
#include <sstream>

#include "runs.hpp"

namespace joule::advisor {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) out.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

bool skipped(const std::string& line) {
  const std::string t = trim(line);
  return t.empty() || t[0] == '#';
}

}  // namespace

std::vector<Run> read_runs_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open");
  std::vector<std::string> header;
  std::vector<Run> runs;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (skipped(line)) continue;
    const std::string where = path + ":" + std::to_string(n);
    std::vector<std::string> cells = split(line);
    if (header.empty()) {
      for (const std::string& name : cells) check_column(name, where);
      header = cells;
      continue;
    }
    if (cells.size() != header.size())
      throw InputError(where + ": " + std::to_string(cells.size()) + " fields, the header has " +
                       std::to_string(header.size()));
    std::vector<std::pair<std::string, std::string>> fields;
    for (size_t i = 0; i < cells.size(); ++i) fields.emplace_back(header[i], cells[i]);
    runs.push_back(make_run(fields, where));
  }
  if (runs.empty()) throw InputError(path + ": no runs (a header row and at least one run)");
  return runs;
}

}  // namespace joule::advisor
