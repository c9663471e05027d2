// Small text helpers every layer shares (header-only, so that tools and the
// trace-format library use them without linking the runtime): trimming, CPU
// lists, JSON strings, one number through a printf format, user input made
// safe to quote in a message, the size of an hwloc synthetic description.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace joule::core {

// Without leading and trailing blanks (space, tab, CR).
inline std::string_view trim(std::string_view s) noexcept {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}
namespace text_detail {

inline int parse_cpu(std::string_view v) {
  v = trim(v);
  int x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size())
    throw std::invalid_argument("not a CPU number");
  if (x < 0 || x > 65535) throw std::invalid_argument("CPU number out of range");
  return x;
}

}  // namespace text_detail

// "0-3,6" -> {0,1,2,3,6}, sorted, without repeats; "" -> {}. Throws
// std::invalid_argument on anything else (a descending range, a CPU > 65535).
inline std::vector<int> parse_cpu_list(std::string_view v) {
  std::vector<int> cpus;
  v = trim(v);
  while (!v.empty()) {
    const auto comma = v.find(',');
    const std::string_view item = trim(v.substr(0, comma));
    v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
    const auto dash = item.find('-');
    const int a = text_detail::parse_cpu(item.substr(0, dash));
    const int b =
        dash == std::string_view::npos ? a : text_detail::parse_cpu(item.substr(dash + 1));
    if (b < a) throw std::invalid_argument("descending range");
    for (int c = a; c <= b; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

// The inverse: {0,1,2,3,6} -> "0-3,6".
inline std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    // Appended piece by piece: `"-" + std::to_string(...)` trips g++ 12's
    // false-positive -Wrestrict in inlined std::string code.
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) {
      out += '-';
      out += std::to_string(cpus[j]);
    }
    i = j + 1;
  }
  return out;
}

// One double through a printf format ("%.3f"), for reports.
inline std::string format_number(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

// s as a JSON string literal, quotes included.
inline std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

// User input as an error message may quote it: control bytes, DEL and bytes
// >= 0x80 become \xNN (a terminal must not act on them), and input longer
// than `max` bytes is cut, saying how long it was.
inline std::string escape_text(std::string_view s, std::size_t max = 200) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > max) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

// A message of several lines that may quote input anywhere (a tool's last
// word on an error): each line escaped as by escape_text, the breaks kept.
inline std::string escape_lines(std::string_view s, std::size_t max_line = 1000) {
  std::string out;
  for (std::size_t at = 0; at <= s.size();) {
    const std::size_t end = std::min(s.find('\n', at), s.size());
    out += escape_text(s.substr(at, end - at), max_line);
    if (end < s.size()) out += '\n';
    at = end + 1;
  }
  return out;
}

// The most PUs a synthetic machine (JOULE_TOPOLOGY, JOULE_WORKER_TOPOLOGY)
// may have: the largest CPU number parse_cpu_list takes, plus one.
inline constexpr std::uint64_t kMaxSyntheticPus = 65536;

// The PUs an hwloc synthetic description ("package:2 core:4 pu:2") asks
// for: the product of its level counts, saturated at `cap` + 1 so that a
// huge one neither overflows nor reaches hwloc (which would build every
// object). Attributes in parentheses are skipped; a level without a count
// counts as 1 and is left for hwloc to judge.
inline std::uint64_t synthetic_pu_count(std::string_view d, std::uint64_t cap) {
  std::uint64_t n = 1;
  int depth = 0;
  std::size_t i = 0;
  while (i < d.size()) {
    const char c = d[i];
    if (c == '(' || c == ')') depth += c == '(' ? 1 : -1;
    const bool starts_count =
        depth == 0 && c >= '0' && c <= '9' && (i == 0 || d[i - 1] == ':' || d[i - 1] == ' ');
    if (!starts_count) {
      ++i;
      continue;
    }
    std::uint64_t level = 0;
    for (; i < d.size() && d[i] >= '0' && d[i] <= '9'; ++i)
      level = std::min<std::uint64_t>(level * 10 + std::uint64_t(d[i] - '0'), cap + 1);
    n = std::min<std::uint64_t>(n * std::max<std::uint64_t>(level, 1), cap + 1);
  }
  return n;
}

}  // namespace joule::core
