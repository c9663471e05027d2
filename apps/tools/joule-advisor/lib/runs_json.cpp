// JSON baseline runs: an array of objects, bare or as {"runs": [...]}, with
// the CSV column names as keys and numbers or strings as values. nlohmann
// keeps no source positions, so a small scan finds the line each run object
// starts on, for messages in the same file:line form as the CSV reader.
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "runs.hpp"

namespace joule::advisor {
namespace {

// Line of every '{' opened at nesting depth `depth` (strings skipped).
std::vector<int> object_lines(const std::string& text, int depth) {
  std::vector<int> lines;
  int line = 1, level = 0;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (ch == '\n') ++line;
    if (in_string) {
      escaped = !escaped && ch == '\\';
      if (ch == '"' && !escaped) in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    if (ch == '{' || ch == '[') {
      if (ch == '{' && level == depth) lines.push_back(line);
      ++level;
    }
    if (ch == '}' || ch == ']') --level;
  }
  return lines;
}

int line_of_offset(const std::string& text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return v.dump();
  return v.dump();  // a list or object: make_run reports it as not a number
}

}  // namespace

std::vector<Run> read_runs_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open");
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ":" + std::to_string(line_of_offset(text, e.byte)) +
                     ": not valid JSON (" + e.what() + ")");
  }
  const bool wrapped = doc.is_object();
  const nlohmann::json& list = wrapped && doc.contains("runs") ? doc["runs"] : doc;
  if (!list.is_array())
    throw InputError(path + ":1: expected an array of runs, or an object with key 'runs'");
  const std::vector<int> lines = object_lines(text, wrapped ? 2 : 1);
  std::vector<Run> runs;
  for (size_t i = 0; i < list.size(); ++i) {
    const int line = i < lines.size() ? lines[i] : 1;
    const std::string where =
        path + ":" + std::to_string(line) + " (run " + std::to_string(i) + ")";
    if (!list[i].is_object()) throw InputError(where + ": a run must be an object");
    std::vector<std::pair<std::string, std::string>> fields;
    for (const auto& [key, value] : list[i].items()) fields.emplace_back(key, value_text(value));
    runs.push_back(make_run(fields, where));
  }
  if (runs.empty()) throw InputError(path + ": no runs");
  return runs;
}

}  // namespace joule::advisor
