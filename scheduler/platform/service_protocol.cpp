// The jouled line format (service_protocol.hpp).
#include "service_protocol.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace joule::platform::service_client {

namespace {

bool plain_value_byte(unsigned char c) { return c >= 0x21 && c <= 0x7e && c != '%'; }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool fail(std::string* error, const char* why) {
  if (error) *error = why;
  return false;
}

}  // namespace

bool valid_verb(std::string_view verb) noexcept {
  if (verb.empty() || verb.size() > 32) return false;
  for (char c : verb)
    if (!((c >= 'a' && c <= 'z') || c == '-')) return false;
  return true;
}

bool valid_key(std::string_view key) noexcept {
  if (key.empty() || key.size() > 32) return false;
  for (char c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

std::string escape_value(std::string_view raw) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(raw.size());
  for (char ch : raw) {
    const auto c = static_cast<unsigned char>(ch);
    if (plain_value_byte(c)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::optional<std::string> unescape_value(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = hex_digit(text[i + 1]);
      const int lo = hex_digit(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (plain_value_byte(c)) {
      out += static_cast<char>(c);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

const std::string* Line::get(std::string_view key) const noexcept {
  for (const auto& [k, v] : fields_)
    if (k == key) return &v;
  return nullptr;
}

std::string Line::get_or(std::string_view key, std::string fallback) const {
  const auto* v = get(key);
  return v ? *v : std::move(fallback);
}

std::optional<std::uint64_t> Line::get_u64(std::string_view key) const {
  const auto* v = get(key);
  if (!v || v->empty()) return std::nullopt;
  std::uint64_t out = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc{} || end != v->data() + v->size()) return std::nullopt;
  return out;
}

std::optional<double> Line::get_double(std::string_view key) const {
  const auto* v = get(key);
  if (!v || v->empty()) return std::nullopt;
  double out = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc{} || end != v->data() + v->size() || !std::isfinite(out)) return std::nullopt;
  return out;
}

Line& Line::add(std::string key, std::string value) {
  for (auto& [k, v] : fields_) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  fields_.emplace_back(std::move(key), std::move(value));
  return *this;
}

Line& Line::add(std::string key, std::uint64_t value) {
  return add(std::move(key), std::to_string(value));
}

Line& Line::add(std::string key, std::int64_t value) {
  return add(std::move(key), std::to_string(value));
}

Line& Line::add(std::string key, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", std::isfinite(value) ? value : 0.0);
  return add(std::move(key), std::string(buf));
}

std::string Line::format() const {
  std::string out = verb_;
  for (const auto& [k, v] : fields_) {
    out += ' ';
    out += k;
    out += '=';
    out += escape_value(v);
  }
  out += '\n';
  return out;
}

std::optional<Line> parse_line(std::string_view text, std::string* error) {
  std::string local;
  if (!error) error = &local;
  if (text.size() > kMaxLine) return fail(error, "line longer than 4096 bytes"), std::nullopt;
  const auto space = text.find(' ');
  const auto verb = text.substr(0, space);
  if (!valid_verb(verb)) return fail(error, "the verb must be 1-32 of a-z and '-'"), std::nullopt;
  Line line{std::string(verb)};
  std::string_view rest =
      space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
  while (space != std::string_view::npos) {
    const auto next = rest.find(' ');
    const auto field = rest.substr(0, next);
    const auto eq = field.find('=');
    if (eq == std::string_view::npos)
      return fail(error, "a field must be key=value, separated by one space"), std::nullopt;
    const auto key = field.substr(0, eq);
    if (!valid_key(key)) return fail(error, "a key must be 1-32 of a-z, 0-9 and '_'"), std::nullopt;
    if (line.get(key)) return fail(error, "a key appears twice"), std::nullopt;
    if (line.fields().size() >= kMaxFields) return fail(error, "more than 64 fields"), std::nullopt;
    auto value = unescape_value(field.substr(eq + 1));
    if (!value)
      return fail(error, "a value has a byte outside 0x21-0x7e or a bad %XX escape"), std::nullopt;
    line.add(std::string(key), std::move(*value));
    if (next == std::string_view::npos) break;
    rest = rest.substr(next + 1);
  }
  return line;
}

Line error_line(std::string_view code, std::string_view message) {
  Line line{"err"};
  line.add("code", std::string(code));
  line.add("message", std::string(message));
  return line;
}

void LineReader::feed(const char* data, std::size_t n) {
  if (overlong_) return;
  buf_.append(data, n);
  const auto nl = buf_.find('\n');
  if ((nl == std::string::npos && buf_.size() > kMaxLine) ||
      (nl != std::string::npos && nl > kMaxLine))
    overlong_ = true;
}

std::optional<std::string> LineReader::next() {
  if (overlong_) return std::nullopt;
  const auto nl = buf_.find('\n');
  if (nl == std::string::npos) return std::nullopt;
  if (nl > kMaxLine) {
    overlong_ = true;
    return std::nullopt;
  }
  std::string line = buf_.substr(0, nl);
  buf_.erase(0, nl + 1);
  // A later line in the buffer may itself be too long.
  const auto nl2 = buf_.find('\n');
  if ((nl2 == std::string::npos && buf_.size() > kMaxLine) ||
      (nl2 != std::string::npos && nl2 > kMaxLine))
    overlong_ = true;
  return line;
}

}  // namespace joule::platform::service_client
