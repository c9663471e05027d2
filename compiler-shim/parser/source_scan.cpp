// Scanning from a pragma to what it applies to (see source_scan.hpp).
#include "source_scan.hpp"

#include <cctype>

namespace joulecc {
namespace {

// Offset just past the line holding `i` (backslash continuations included).
unsigned line_end(const std::string& buf, unsigned i) {
  while (i < buf.size() && buf[i] != '\n') i += buf[i] == '\\' && i + 1 < buf.size() ? 2 : 1;
  return i;
}

// The directive name of a preprocessor line starting at `i` ('#'), e.g. "endif".
std::string directive_at(const std::string& buf, unsigned i) {
  unsigned j = i + 1;
  while (j < buf.size() && (buf[j] == ' ' || buf[j] == '\t')) ++j;
  unsigned k = j;
  while (k < buf.size() && std::isalpha(static_cast<unsigned char>(buf[k]))) ++k;
  return buf.substr(j, k - j);
}

// Past the #endif closing the conditional whose #else/#elif is at `i`: the
// pragma sat in the active branch, so the rest of the conditional is not.
unsigned skip_conditional(const std::string& buf, unsigned i) {
  int depth = 0;
  for (i = line_end(buf, i); i < buf.size(); ++i) {
    if (buf[i] != '#') continue;
    std::size_t bol = buf.find_last_of('\n', i);
    bol = bol == std::string::npos ? 0 : bol + 1;
    if (buf.find_first_not_of(" \t", bol) != i) continue;
    std::string d = directive_at(buf, i);
    if (d.rfind("if", 0) == 0) ++depth;
    if (d == "endif" && depth-- == 0) return line_end(buf, i);
  }
  return static_cast<unsigned>(buf.size());
}

}  // namespace

unsigned next_token(const std::string& buf, unsigned from) {
  unsigned i = from;
  while (i < buf.size()) {
    char c = buf[i];
    // Only blanks and comments precede a '#' reached here: it starts a directive.
    if (c == '#' && directive_at(buf, i) != "pragma") {
      std::string d = directive_at(buf, i);
      i = d == "else" || d == "elif" ? skip_conditional(buf, i) : line_end(buf, i);
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (c == '\\' && i + 1 < buf.size() && buf[i + 1] == '\n') {
      i += 2;
    } else if (c == '/' && i + 1 < buf.size() && buf[i + 1] == '*') {
      std::size_t e = buf.find("*/", i + 2);
      i = e == std::string::npos ? static_cast<unsigned>(buf.size()) : static_cast<unsigned>(e + 2);
    } else if (c == '/' && i + 1 < buf.size() && buf[i + 1] == '/') {
      while (i < buf.size() && buf[i] != '\n') ++i;
    } else {
      break;
    }
  }
  return i;
}

}  // namespace joulecc
