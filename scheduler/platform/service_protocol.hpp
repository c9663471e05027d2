// The jouled wire protocol, version 1 (docs/service.md, "Protocol"). A
// client talks to the node service over a Unix stream socket in text lines:
//
//   line    = verb *( " " key "=" value ) "\n"        at most kMaxLine bytes
//   verb    = 1*32( "a"-"z" / "-" )
//   key     = 1*32( "a"-"z" / "0"-"9" / "_" )
//   value   = *( any byte 0x21-0x7e but "%" / "%" 2HEXDIG )
//
// Each request gets zero or more "data ..." lines, then one final line:
// "ok ..." or "err code=<code> message=<text>". Keys are unique within a
// line and at most kMaxFields. The first request must be
// "hello version=1"; a server answers an unknown version with
// err code=version. Text was chosen over a binary frame so an administrator
// can talk to the service with socat and a fuzzer has little to get wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace joule::platform::service_client {

inline constexpr int kProtocolVersion = 1;
inline constexpr std::size_t kMaxLine = 4096;
inline constexpr std::size_t kMaxFields = 64;
inline constexpr const char* kDefaultSocket = "/run/joule/jouled.sock";

// Error codes of an "err" line.
inline constexpr const char* kErrBadRequest = "bad-request";  // not a valid line or verb
inline constexpr const char* kErrVersion = "version";         // unsupported protocol version
inline constexpr const char* kErrDenied = "denied";           // access file grants no such control
inline constexpr const char* kErrScope = "scope";        // CPU outside the client's cpuset/affinity
inline constexpr const char* kErrRange = "range";        // value outside the allowed bounds
inline constexpr const char* kErrState = "state";        // out of order (no hello, lease ended)
inline constexpr const char* kErrInternal = "internal";  // the service failed (sysfs write, ...)

class Line {
 public:
  Line() = default;
  explicit Line(std::string verb) : verb_(std::move(verb)) {}

  const std::string& verb() const noexcept { return verb_; }
  const std::vector<std::pair<std::string, std::string>>& fields() const noexcept {
    return fields_;
  }
  // The value of `key`, or nullptr.
  const std::string* get(std::string_view key) const noexcept;
  std::string get_or(std::string_view key, std::string fallback) const;
  // Unsigned integer value of `key` (decimal, no sign); nullopt if absent or not a number.
  std::optional<std::uint64_t> get_u64(std::string_view key) const;
  std::optional<double> get_double(std::string_view key) const;

  // Appends (or replaces) a field. Keys must follow the grammar; values
  // are escaped when formatted, so any text may be stored.
  Line& add(std::string key, std::string value);
  Line& add(std::string key, std::uint64_t value);
  Line& add(std::string key, std::int64_t value);
  Line& add(std::string key, int value) { return add(std::move(key), std::int64_t(value)); }
  Line& add(std::string key, double value);

  bool is_ok() const noexcept { return verb_ == "ok"; }
  bool is_err() const noexcept { return verb_ == "err"; }
  bool is_data() const noexcept { return verb_ == "data"; }

  // The line with its "\n".
  std::string format() const;

 private:
  std::string verb_;
  std::vector<std::pair<std::string, std::string>> fields_;
};

// Parses one line (without its "\n"; a trailing "\r" is an error). On
// failure returns nullopt and says why in *error (plain ASCII, no input
// bytes echoed).
std::optional<Line> parse_line(std::string_view text, std::string* error);

// "err code=<code> message=<message>".
Line error_line(std::string_view code, std::string_view message);

// Splits a byte stream into lines. Bytes beyond kMaxLine without a newline
// make the reader fail (overlong()); the caller answers and closes.
class LineReader {
 public:
  // Appends received bytes.
  void feed(const char* data, std::size_t n);
  // The next complete line without "\n", if any.
  std::optional<std::string> next();
  bool overlong() const noexcept { return overlong_; }
  std::size_t buffered() const noexcept { return buf_.size(); }

 private:
  std::string buf_;
  bool overlong_ = false;
};

bool valid_key(std::string_view key) noexcept;
bool valid_verb(std::string_view verb) noexcept;
std::string escape_value(std::string_view raw);
std::optional<std::string> unescape_value(std::string_view text);

}  // namespace joule::platform::service_client
