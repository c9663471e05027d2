// The affinity format of OpenMP 5 (OMP_AFFINITY_FORMAT, omp_capture_affinity):
// each % field is a letter or a {long name} with an optional size; "0." pads
// numbers with zeros on the left, "." pads with blanks on the left, a bare
// size pads on the right; %% is a percent sign.
#include "omp_affinity_format.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>

namespace joule::api {
namespace {

struct Field {
  char letter;
  const char* name;
};
constexpr Field kFields[] = {
    {'t', "team_num"},         {'T', "num_teams"},      {'L', "nesting_level"}, {'n', "thread_num"},
    {'N', "num_threads"},      {'a', "ancestor_tnum"},  {'H', "host"},          {'P', "process_id"},
    {'i', "native_thread_id"}, {'A', "thread_affinity"}};

// One parsed field: where it ends, or why it is bad.
struct Spec {
  bool zero = false, right = false;
  int width = 0;
  char letter = 0;
  std::size_t end = 0;
  std::string error;
};

Spec parse_field(std::string_view f, std::size_t pos) {
  Spec s;
  if (pos < f.size() && f[pos] == '0') {
    if (pos + 1 >= f.size() || f[pos + 1] != '.') return s.error = "a leading 0 needs a '.'", s;
    s.zero = s.right = true;
    pos += 2;
  } else if (pos < f.size() && f[pos] == '.') {
    s.right = true;
    ++pos;
  }
  const std::size_t digits = pos;
  while (pos < f.size() && std::isdigit(static_cast<unsigned char>(f[pos])))
    s.width = std::min(s.width * 10 + (f[pos++] - '0'), 4096);
  if (s.right && pos == digits) return s.error = "'0.' or '.' without a size", s;
  if (pos >= f.size()) return s.error = "a field without a type at the end", s;
  if (f[pos] == '{') {
    const std::size_t close = f.find('}', pos);
    if (close == std::string_view::npos) return s.error = "a '{' without '}'", s;
    const std::string_view name = f.substr(pos + 1, close - pos - 1);
    for (const Field& k : kFields)
      if (name == k.name) s.letter = k.letter;
    if (!s.letter) return s.error = "unknown field {" + std::string(name) + "}", s;
    s.end = close + 1;
    return s;
  }
  for (const Field& k : kFields)
    if (f[pos] == k.letter) s.letter = k.letter;
  if (!s.letter) return s.error = std::string("unknown field %") + f[pos], s;
  s.end = pos + 1;
  return s;
}

std::string value_of(char letter, const joule_omp_thread_info_t& i, bool* numeric) {
  *numeric = true;
  switch (letter) {
    case 't':
      return std::to_string(i.team_num);
    case 'T':
      return std::to_string(i.num_teams);
    case 'L':
      return std::to_string(i.level);
    case 'n':
      return std::to_string(i.thread_num);
    case 'N':
      return std::to_string(i.num_threads);
    case 'a':
      return std::to_string(i.ancestor_tnum);
    case 'P':
      return std::to_string(i.process_id);
    case 'i':
      return std::to_string(i.native_thread_id);
    default:
      break;
  }
  *numeric = false;
  const char* text = letter == 'H' ? i.host : i.affinity;
  return text ? text : "";
}

std::string padded(std::string v, const Spec& s, bool numeric) {
  if (int(v.size()) >= s.width) return v;
  const std::size_t fill = std::size_t(s.width) - v.size();
  if (s.zero && numeric) return v.insert(v[0] == '-' ? 1 : 0, fill, '0');
  return s.right ? std::string(fill, ' ') + v : v + std::string(fill, ' ');
}

}  // namespace

std::string format_affinity(std::string_view format, const joule_omp_thread_info_t& info) {
  std::string out;
  for (std::size_t pos = 0; pos < format.size(); ++pos) {
    if (format[pos] != '%') {
      out += format[pos];
      continue;
    }
    if (pos + 1 < format.size() && format[pos + 1] == '%') {
      out += '%';
      ++pos;
      continue;
    }
    const Spec s = parse_field(format, pos + 1);
    if (!s.error.empty()) {
      out += '%';  // copied as written, from the character after it
      continue;
    }
    bool numeric = false;
    std::string v = value_of(s.letter, info, &numeric);
    out += padded(std::move(v), s, numeric);
    pos = s.end - 1;
  }
  return out;
}

std::string affinity_format_error(std::string_view format) {
  for (std::size_t pos = 0; pos < format.size(); ++pos) {
    if (format[pos] != '%') continue;
    if (pos + 1 < format.size() && format[pos + 1] == '%') {
      ++pos;
      continue;
    }
    const Spec s = parse_field(format, pos + 1);
    if (!s.error.empty()) return s.error + " at character " + std::to_string(pos + 1);
    pos = s.end - 1;
  }
  return {};
}

void check_affinity_format(std::string_view format) {
  if (std::string e = affinity_format_error(format); !e.empty()) throw std::invalid_argument(e);
}

std::string affinity_fields() {
  std::string out;
  for (const Field& k : kFields) {
    if (!out.empty()) out += ", ";
    out += '%';
    out += k.letter;
    out += " {";
    out += k.name;
    out += '}';
  }
  return out;
}

}  // namespace joule::api

extern "C" size_t joule_omp_check_affinity_format(const char* format, char* buf, size_t size) {
  const std::string e = format ? joule::api::affinity_format_error(format) : std::string();
  if (buf && size > 0) {
    const std::size_t n = std::min(e.size(), size - 1);
    std::memcpy(buf, e.data(), n);
    buf[n] = '\0';
  }
  return e.size();
}

extern "C" size_t joule_omp_format_affinity(const char* format, const joule_omp_thread_info_t* info,
                                            char* buf, size_t size) {
  if (!format || !info) return 0;
  const std::string line = joule::api::format_affinity(format, *info);
  if (buf && size > 0) {
    const std::size_t n = std::min(line.size(), size - 1);
    std::memcpy(buf, line.data(), n);
    buf[n] = '\0';
  }
  return line.size();
}
