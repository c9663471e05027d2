// Raw text of one `#pragma` directive and the line table of a source buffer.
// Clang-free: the fuzzer and the unit tests use these without libclang.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace joulecc {

// The logical text of a directive after `#pragma`: backslash-newlines
// removed, comments turned into one space. offsets[i] is the buffer offset of
// text[i], so every diagnostic can point at the user's character.
struct PragmaText {
  std::string text;
  std::vector<unsigned> offsets;
  unsigned begin = 0;  // offset of the '#'
  unsigned end = 0;    // offset of the newline that ends the directive (or size)
  unsigned offset_of(unsigned pos) const;
};

// Reads the directive whose '#' is at buf[hash]. Returns false when the
// directive is not a #pragma (text is then unspecified).
bool read_pragma(std::string_view buf, unsigned hash, PragmaText& out);

// The first word of a pragma's text ("oss", "omp", ...) or "".
std::string pragma_namespace(const PragmaText& p);

// Line/column of buffer offsets (1-based, columns in bytes as Clang counts).
class LineTable {
 public:
  explicit LineTable(std::string_view buf);
  unsigned line(unsigned offset) const;
  unsigned column(unsigned offset) const;
  unsigned line_start(unsigned line) const;  // offset of the first byte of a line
  // Spaces (tabs kept) that put the next character at offset's column, so
  // that a compiler's caret and column match the user's line.
  std::string indent_for(unsigned offset) const;

 private:
  std::string_view buf_;
  std::vector<unsigned> starts_;
};

}  // namespace joulecc
