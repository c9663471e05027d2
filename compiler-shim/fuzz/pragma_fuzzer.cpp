// libFuzzer target over joulecc's pragma front end (no Clang): directive text
// extraction, tokenizing, directive/clause parsing and data references.
// Any input must give a result or an error with a position inside the text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "directive.hpp"
#include "pragma_text.hpp"
#include "region.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void directive(const std::string& text) {
  joulecc::Directive d;
  joulecc::ParseError e;
  if (!joulecc::parse_directive(text, d, e)) {
    check(e.pos <= text.size() && !e.message.empty());
    return;
  }
  for (const joulecc::Clause& c : d.clauses) {
    for (const joulecc::Expr& a : c.args) {
      check(a.pos <= a.end && a.end <= text.size());
      if (!joulecc::is_dependence_clause(c) && c.canonical.rfind("copy_", 0) != 0) continue;
      joulecc::Region r;
      joulecc::ParseError re;
      if (joulecc::parse_region(a, c.canonical == "depend", r, re)) {
        check(r.base.end <= text.size());
        joulecc::rename_identifiers(r.base.text, {{r.base_name, "(*p)"}});
      } else {
        check(re.pos <= text.size() + 1 && !re.message.empty());
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string buf(reinterpret_cast<const char*>(data), size);
  joulecc::LineTable lines(buf);
  for (std::size_t i = buf.find('#'); i != std::string::npos; i = buf.find('#', i + 1)) {
    joulecc::PragmaText p;
    if (!joulecc::read_pragma(buf, static_cast<unsigned>(i), p)) continue;
    check(p.end <= buf.size() && p.text.size() == p.offsets.size());
    for (unsigned o : p.offsets) check(o < buf.size());
    lines.line(p.end);
    lines.indent_for(p.begin);
    std::string ns = joulecc::pragma_namespace(p);
    if (ns == "oss" || ns == "omp") directive(p.text.substr(p.text.find(ns)));
  }
  if (buf.rfind("oss", 0) == 0 || buf.rfind("omp", 0) == 0) directive(buf);  // bare directive text
  return 0;
}
