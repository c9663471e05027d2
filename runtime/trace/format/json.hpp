// A small JSON reader (RFC 8259): a recursive-descent parser that can build
// a value, skip one, or be driven element by element so that a large
// "traceEvents" array never has to be held whole. Used by joule-trace to
// read Chrome traces and by the tests to validate them.
#pragma once

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace joule::trace_format {

struct JsonError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct JsonValue {
  enum Type { null, boolean, number, string, array, object } type = null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<JsonValue> items;   // array elements, or object values
  std::vector<std::string> keys;  // object keys, parallel to items

  const JsonValue* find(std::string_view key) const;
  double number_or(std::string_view key, double fallback) const;
  std::string string_or(std::string_view key, const std::string& fallback) const;
};

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : s_(text) {}

  JsonValue parse_value();
  void skip_value();  // validates without building
  // Driving an object or array by hand: begin_*, then next_* until false.
  void begin_object();
  bool next_key(std::string& key);  // false at '}'
  void begin_array();
  bool next_item();   // false at ']'
  void expect_end();  // only whitespace left
  std::size_t offset() const { return pos_; }

 private:
  void ws();
  char peek();
  void expect(char c);
  std::string parse_string();
  double parse_number();
  void literal(std::string_view word);
  [[noreturn]] void fail(const std::string& what) const;

  std::string_view s_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::vector<bool> first_;  // per open container: no element read yet
};

// Compact serialisation (numbers with up to 17 significant digits).
std::string to_json(const JsonValue& v);

// Parses the whole text; returns "" if valid, else the error with its offset.
std::string json_error(std::string_view text);

}  // namespace joule::trace_format
