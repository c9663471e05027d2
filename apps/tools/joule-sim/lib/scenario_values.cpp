#include "scenario_values.hpp"
#include "text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace joule::sim {
namespace {

std::string range_text(double lo, double hi) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "a number in [%g, %g]", lo, hi);
  return buf;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const auto next = s.find(sep, at);
    out.push_back(trim(s.substr(at, next - at)));
    if (next == std::string::npos) return out;
    at = next + 1;
  }
}

}  // namespace

double parse_number(const std::string& v, double lo, double hi) {
  const std::string t = trim(v);
  char* end = nullptr;
  const double x = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !std::isfinite(x) || x < lo || x > hi)
    throw ValueError("'" + core::escape_text(v) + "' is not " + range_text(lo, hi));
  return x;
}

int parse_int(const std::string& v, int lo, int hi) {
  const double x = parse_number(v, lo, hi);
  if (x != std::floor(x))
    throw ValueError("'" + core::escape_text(v) + "' is not an integer in [" + std::to_string(lo) +
                     ", " + std::to_string(hi) + "]");
  return int(x);
}

bool parse_bool(const std::string& v) { return parse_choice(v, {"true", "false"}) == "true"; }

std::vector<double> parse_numbers(const std::string& v, double lo, double hi) {
  std::vector<double> out;
  if (trim(v).empty()) return out;
  for (const auto& p : split(v, ',')) out.push_back(parse_number(p, lo, hi));
  return out;
}

std::string parse_choice(const std::string& v, const std::vector<std::string>& allowed) {
  const std::string t = trim(v);
  if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) return t;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : " | ") + a;
  throw ValueError("'" + core::escape_text(v) + "' is not one of " + list);
}

std::vector<double> parse_pstates(const std::string& v) {
  const std::string bad =
      "'" + core::escape_text(v) + "' is not a P-state list (1.2,1.8,2.4) or range (1.2-2.4:0.1)";
  std::vector<double> out;
  const auto colon = v.find(':');
  if (colon != std::string::npos) {
    const auto ends = split(v.substr(0, colon), '-');
    if (ends.size() != 2) throw ValueError(bad);
    const double lo = parse_number(ends[0], 0.01, 100), hi = parse_number(ends[1], lo, 100);
    const double step = parse_number(v.substr(colon + 1), 1e-3, 100);
    // Integer steps: no drift from repeated addition; 1 Hz of slack at the top.
    for (int i = 0; lo + i * step <= hi + 1e-9; ++i)
      out.push_back(std::round((lo + i * step) * 1e6) / 1e6);
  } else {
    out = parse_numbers(v, 0.01, 100);
  }
  if (out.empty()) throw ValueError(bad);
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i] <= out[i - 1]) throw ValueError(bad + ": not ascending");
  return out;
}

PowerModel parse_power(const std::string& v) {
  const std::string allowed = "linear:a,b | cubic:Ps,k | table:w1,w2,...";
  const auto colon = v.find(':');
  if (colon == std::string::npos)
    throw ValueError("'" + core::escape_text(v) + "' is not one of " + allowed);
  PowerModel m;
  const std::string kind = parse_choice(v.substr(0, colon), {"linear", "cubic", "table"});
  const auto nums = parse_numbers(v.substr(colon + 1), 0, 1e6);
  if (kind == "table") {
    m.kind = PowerModel::Kind::table;
    m.table = nums;
    if (nums.empty())
      throw ValueError("'" + core::escape_text(v) + "': table needs one watt value per P-state");
    return m;
  }
  if (nums.size() != 2)
    throw ValueError("'" + core::escape_text(v) + "' needs two numbers: " + allowed);
  m.kind = kind == "linear" ? PowerModel::Kind::linear : PowerModel::Kind::cubic;
  m.a = nums[0];
  m.b = nums[1];
  return m;
}

double PowerModel::watts(double ghz, std::size_t level) const {
  switch (kind) {
    case Kind::linear:
      return a + b * ghz;
    case Kind::cubic:
      return a + b * ghz * ghz * ghz;
    case Kind::table:
      return table[std::min(level, table.size() - 1)];
  }
  return 0;
}

}  // namespace joule::sim
