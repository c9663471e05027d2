#include "pragma_text.hpp"

#include <algorithm>
#include <cctype>

namespace joulecc {
namespace {

// Length of a backslash-newline at i (2 or 3 with CR), 0 if none.
unsigned splice_at(std::string_view b, unsigned i) {
  if (i >= b.size() || b[i] != '\\') return 0;
  if (i + 1 < b.size() && b[i + 1] == '\n') return 2;
  if (i + 2 < b.size() && b[i + 1] == '\r' && b[i + 2] == '\n') return 3;
  return 0;
}

bool is_hspace(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

// Skips horizontal space, splices and block comments before the directive name.
unsigned skip_directive_space(std::string_view b, unsigned i) {
  for (;;) {
    if (i < b.size() && is_hspace(b[i])) {
      ++i;
    } else if (unsigned s = splice_at(b, i)) {
      i += s;
    } else if (i + 1 < b.size() && b[i] == '/' && b[i + 1] == '*') {
      std::size_t e = b.find("*/", i + 2);
      i = e == std::string_view::npos ? static_cast<unsigned>(b.size())
                                      : static_cast<unsigned>(e + 2);
    } else {
      return i;
    }
  }
}

struct Collector {
  std::string_view b;
  PragmaText& out;
  void put(char c, unsigned at) {
    out.text.push_back(c);
    out.offsets.push_back(at);
  }
  // Copies a string or character literal starting at i; returns the index after it.
  unsigned literal(unsigned i) {
    char q = b[i];
    put(q, i++);
    while (i < b.size() && b[i] != '\n') {
      if (unsigned s = splice_at(b, i)) {
        i += s;
        continue;
      }
      char c = b[i];
      put(c, i++);
      if (c == '\\' && i < b.size() && b[i] != '\n') {
        put(b[i], i);
        ++i;
      } else if (c == q) {
        return i;
      }
    }
    return i;  // unterminated: the lexer reports it
  }
  unsigned run(unsigned i) {
    while (i < b.size() && b[i] != '\n') {
      if (unsigned s = splice_at(b, i)) {
        i += s;
      } else if (b[i] == '/' && i + 1 < b.size() && b[i + 1] == '*') {
        put(' ', i);
        std::size_t e = b.find("*/", i + 2);
        i = e == std::string_view::npos ? static_cast<unsigned>(b.size())
                                        : static_cast<unsigned>(e + 2);
      } else if (b[i] == '/' && i + 1 < b.size() && b[i + 1] == '/') {
        while (i < b.size() && b[i] != '\n') i += splice_at(b, i) ? splice_at(b, i) : 1;
      } else if (b[i] == '"' || b[i] == '\'') {
        i = literal(i);
      } else if (b[i] == '\r' && i + 1 < b.size() && b[i + 1] == '\n') {
        ++i;
      } else {
        put(b[i], i);
        ++i;
      }
    }
    return i;
  }
};

}  // namespace

unsigned PragmaText::offset_of(unsigned pos) const {
  if (offsets.empty()) return begin;
  if (pos < offsets.size()) return offsets[pos];
  return offsets.back() + 1;
}

bool read_pragma(std::string_view buf, unsigned hash, PragmaText& out) {
  out = PragmaText{};
  out.begin = hash;
  if (hash >= buf.size() || buf[hash] != '#') return false;
  unsigned i = skip_directive_space(buf, hash + 1);
  static constexpr std::string_view kPragma = "pragma";
  if (buf.substr(i, kPragma.size()) != kPragma) return false;
  i += kPragma.size();
  if (i < buf.size()) {
    char c = buf[i];
    bool ident =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (ident) return false;
  }
  Collector c{buf, out};
  out.end = c.run(i);
  return true;
}

std::string pragma_namespace(const PragmaText& p) {
  std::size_t i = 0;
  const std::string& t = p.text;
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\f' || t[i] == '\v')) ++i;
  std::size_t j = i;
  while (j < t.size() && (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '_')) ++j;
  return t.substr(i, j - i);
}

LineTable::LineTable(std::string_view buf) : buf_(buf) {
  starts_.push_back(0);
  for (unsigned i = 0; i < buf.size(); ++i)
    if (buf[i] == '\n') starts_.push_back(i + 1);
}

unsigned LineTable::line(unsigned offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<unsigned>(it - starts_.begin());
}

unsigned LineTable::column(unsigned offset) const { return offset - line_start(line(offset)) + 1; }

unsigned LineTable::line_start(unsigned line) const {
  if (line == 0) return 0;
  if (line > starts_.size()) return static_cast<unsigned>(buf_.size());
  return starts_[line - 1];
}

std::string LineTable::indent_for(unsigned offset) const {
  unsigned s = line_start(line(offset));
  std::string pad;
  for (unsigned i = s; i < offset && i < buf_.size(); ++i)
    pad.push_back(buf_[i] == '\t' ? '\t' : ' ');
  return pad;
}

}  // namespace joulecc
