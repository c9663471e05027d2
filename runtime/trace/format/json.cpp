#include "json.hpp"

#include "text.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace joule::trace_format {
namespace {

constexpr int kMaxDepth = 256;

void append_utf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xc0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += char(0xe0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  } else {
    out += char(0xf0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3f));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  }
}

}  // namespace

const JsonValue* JsonValue::find(std::string_view key) const {
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) return &items[i];
  return nullptr;
}

double JsonValue::number_or(std::string_view key, double fallback) const {
  const JsonValue* v = find(key);
  return v && v->type == number ? v->num : fallback;
}

std::string JsonValue::string_or(std::string_view key, const std::string& fallback) const {
  const JsonValue* v = find(key);
  return v && v->type == string ? v->str : fallback;
}

void JsonParser::fail(const std::string& what) const {
  throw JsonError("JSON: " + what + " at offset " + std::to_string(pos_));
}

void JsonParser::ws() {
  while (pos_ < s_.size() &&
         (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
    ++pos_;
}

char JsonParser::peek() {
  ws();
  if (pos_ >= s_.size()) fail("unexpected end");
  return s_[pos_];
}

void JsonParser::expect(char c) {
  if (peek() != c) fail(std::string("expected '") + c + "'");
  ++pos_;
}

void JsonParser::literal(std::string_view word) {
  if (s_.substr(pos_, word.size()) != word) fail("bad literal");
  pos_ += word.size();
}

std::string JsonParser::parse_string() {
  expect('"');
  std::string out;
  for (;;) {
    if (pos_ >= s_.size()) fail("unterminated string");
    const unsigned char c = static_cast<unsigned char>(s_[pos_++]);
    if (c == '"') return out;
    if (c < 0x20) fail("control character in string");
    if (c != '\\') {
      out += char(c);
      continue;
    }
    if (pos_ >= s_.size()) fail("unterminated escape");
    const char e = s_[pos_++];
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        if (pos_ + 4 > s_.size()) fail("short \\u escape");
        unsigned cp = 0;
        for (int i = 0; i < 4; ++i) {
          const char h = s_[pos_++];
          cp <<= 4;
          if (h >= '0' && h <= '9')
            cp |= unsigned(h - '0');
          else if (h >= 'a' && h <= 'f')
            cp |= unsigned(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F')
            cp |= unsigned(h - 'A' + 10);
          else
            fail("bad hex digit");
        }
        append_utf8(out, cp);  // surrogate pairs are kept as two code points
        break;
      }
      default:
        fail("bad escape");
    }
  }
}

double JsonParser::parse_number() {
  ws();
  const std::size_t start = pos_;
  auto digits = [&] {
    const std::size_t d = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    if (pos_ == d) fail("expected a digit");
  };
  if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
  if (pos_ < s_.size() && s_[pos_] == '0')
    ++pos_;
  else
    digits();
  if (pos_ < s_.size() && s_[pos_] == '.') {
    ++pos_;
    digits();
  }
  if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
    digits();
  }
  return std::strtod(std::string(s_.substr(start, pos_ - start)).c_str(), nullptr);
}

JsonValue JsonParser::parse_value() {
  JsonValue v;
  const char c = peek();
  if (c == '{') {
    v.type = JsonValue::object;
    begin_object();
    std::string key;
    while (next_key(key)) {
      v.keys.push_back(std::move(key));
      v.items.push_back(parse_value());
    }
  } else if (c == '[') {
    v.type = JsonValue::array;
    begin_array();
    while (next_item()) v.items.push_back(parse_value());
  } else if (c == '"') {
    v.type = JsonValue::string;
    v.str = parse_string();
  } else if (c == 't' || c == 'f') {
    v.type = JsonValue::boolean;
    v.b = c == 't';
    literal(v.b ? "true" : "false");
  } else if (c == 'n') {
    literal("null");
  } else {
    v.type = JsonValue::number;
    v.num = parse_number();
  }
  return v;
}

void JsonParser::skip_value() {
  const char c = peek();
  if (c == '{') {
    begin_object();
    std::string key;
    while (next_key(key)) skip_value();
  } else if (c == '[') {
    begin_array();
    while (next_item()) skip_value();
  } else if (c == '"') {
    parse_string();
  } else if (c == 't') {
    literal("true");
  } else if (c == 'f') {
    literal("false");
  } else if (c == 'n') {
    literal("null");
  } else {
    parse_number();
  }
}

void JsonParser::begin_object() {
  expect('{');
  if (++depth_ > kMaxDepth) fail("nesting too deep");
  first_.push_back(true);
}

bool JsonParser::next_key(std::string& key) {
  if (peek() == '}') {
    ++pos_;
    --depth_;
    first_.pop_back();
    return false;
  }
  if (!first_.back()) expect(',');
  first_.back() = false;
  key = parse_string();
  expect(':');
  return true;
}

void JsonParser::begin_array() {
  expect('[');
  if (++depth_ > kMaxDepth) fail("nesting too deep");
  first_.push_back(true);
}

bool JsonParser::next_item() {
  if (peek() == ']') {
    ++pos_;
    --depth_;
    first_.pop_back();
    return false;
  }
  if (!first_.back()) expect(',');
  first_.back() = false;
  return true;
}

void JsonParser::expect_end() {
  ws();
  if (pos_ != s_.size()) fail("trailing characters");
}

std::string to_json(const JsonValue& v) {
  switch (v.type) {
    case JsonValue::null:
      return "null";
    case JsonValue::boolean:
      return v.b ? "true" : "false";
    case JsonValue::number: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", v.num);
      return buf;
    }
    case JsonValue::string:
      return core::json_quote(v.str);
    case JsonValue::array: {
      std::string out = "[";
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ',';
        out += to_json(v.items[i]);
      }
      return out + "]";
    }
    case JsonValue::object: {
      std::string out = "{";
      for (std::size_t i = 0; i < v.keys.size(); ++i) {
        if (i) out += ',';
        out += core::json_quote(v.keys[i]);
        out += ':';
        out += to_json(v.items[i]);
      }
      return out + "}";
    }
  }
  return "null";
}

std::string json_error(std::string_view text) {
  try {
    JsonParser p(text);
    p.skip_value();
    p.expect_end();
    return "";
  } catch (const JsonError& e) {
    return e.what();
  }
}

}  // namespace joule::trace_format
