// Parser for `#pragma oss ...` and the OmpSs subset of `#pragma omp ...`:
// the directive and its name here, its clauses in pragma_clauses.cpp.
#include <algorithm>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "directive_parser.hpp"

namespace joulecc {
namespace {

// Directive names and their kinds: those of both prefixes, then those of
// `oss` or `omp` alone.
using NamedKind = std::pair<const char*, DirKind>;
constexpr NamedKind kBothPrefixes[] = {{"task", DirKind::Task},
                                       {"taskloop", DirKind::Taskloop},
                                       {"taskwait", DirKind::Taskwait},
                                       {"critical", DirKind::Critical},
                                       {"atomic", DirKind::Atomic}};
constexpr NamedKind kOssOnly[] = {{"release", DirKind::Release}, {"assert", DirKind::Assert}};
constexpr NamedKind kOmpOnly[] = {{"taskgroup", DirKind::Taskgroup},
                                  {"taskyield", DirKind::Taskyield},
                                  {"flush", DirKind::Flush}};

// Sets k to the kind the list gives name s; false when the list lacks s.
bool kind_named(const std::string& s, std::span<const NamedKind> list, DirKind& k) {
  for (const auto& [name, kind] : list)
    if (s == name) {
      k = kind;
      return true;
    }
  return false;
}

}  // namespace

bool Parser::run() {
  if (!prefix() || !directive_name()) return false;
  if (d_.kind == DirKind::Passthrough || d_.kind == DirKind::Atomic) {
    d_.argument = span(i_, t_.size() - 1);  // kept verbatim for the compiler
    return true;
  }
  if (!directive_argument()) return false;
  return clauses() && ndrange_on_cuda();
}

// ndrange launches a CUDA kernel: only with device(cuda) in the same pragma.
bool Parser::ndrange_on_cuda() {
  const Clause* r = d_.find("ndrange");
  if (!r) return true;
  const Clause* d = d_.find("device");
  if (d && d->modifier == "cuda") return true;
  return fail(r->pos, "'ndrange' needs 'device(cuda)' (the task function is a CUDA kernel)");
}

bool Parser::fail(unsigned pos, std::string msg) {
  err_ = {pos, std::move(msg)};
  return false;
}

bool Parser::prefix() {
  const Token& p = peek();
  if (p.kind != Tok::Ident || (p.text != "oss" && p.text != "omp"))
    return fail(p.pos, "expected 'oss' or 'omp'");
  d_.prefix = p.text == "oss" ? Prefix::Oss : Prefix::Omp;
  ++i_;
  return true;
}

bool Parser::directive_name() {
  const Token& n = peek();
  if (n.kind != Tok::Ident)
    return fail(n.pos, std::string("expected a directive name after '#pragma ") +
                           (d_.prefix == Prefix::Oss ? "oss'" : "omp'"));
  d_.name = n.text;
  d_.name_pos = n.pos;
  ++i_;
  return d_.prefix == Prefix::Oss ? oss_name(n) : omp_name(n);
}

bool Parser::oss_name(const Token& n) {
  const std::string& s = n.text;
  if (s == "task" && peek().is("for"))
    return fail(n.pos, "'#pragma oss task for' is not supported (use 'taskloop')");
  if (task_loop_spelling(n)) return true;
  if (s == "taskloop" && peek().is("for")) {  // worksharing taskloop: a plain taskloop here
    ++i_;
    d_.name = "taskloop for";
  }
  if (kind_named(s, kBothPrefixes, d_.kind) || kind_named(s, kOssOnly, d_.kind)) return true;
  if (s == "taskiter" || s == "declare")
    return fail(n.pos, "'#pragma oss " + s + "' is not supported by joulecc");
  return fail(n.pos, "unknown OmpSs-2 directive '" + s + "'");
}

bool Parser::omp_name(const Token& n) {
  const std::string& s = n.text;
  if (s == "taskloop" && peek().is("simd")) ++i_;  // the simd part is left to the compiler
  if (task_loop_spelling(n)) return true;
  if (kind_named(s, kBothPrefixes, d_.kind) || kind_named(s, kOmpOnly, d_.kind)) return true;
  // Any other OpenMP directive is the compiler's.
  d_.kind = s == "target" && is_ompss_target() ? DirKind::Target : DirKind::Passthrough;
  return true;
}

// `task loop`, the spelling Mercurium accepted for taskloop.
bool Parser::task_loop_spelling(const Token& n) {
  if (n.text != "task" || !peek().is("loop")) return false;
  ++i_;
  d_.name = "taskloop";
  d_.kind = DirKind::Taskloop;
  return true;
}

// `omp target` is OmpSs when every clause is an OmpSs target clause.
bool Parser::is_ompss_target() const {
  std::size_t k = i_;
  bool any = false;
  int depth = 0;
  for (; k < t_.size() && t_[k].kind != Tok::End; ++k) {
    const Token& t = t_[k];
    if (t.is("("))
      ++depth;
    else if (t.is(")"))
      --depth;
    else if (depth == 0 && t.kind == Tok::Ident) {
      if (!ompss_target_clause(t.text)) return false;
      any = true;
    }
  }
  return any;
}

// critical(name), flush(list), assert("text").
bool Parser::directive_argument() {
  bool takes =
      d_.kind == DirKind::Critical || d_.kind == DirKind::Flush || d_.kind == DirKind::Assert;
  if (!takes || !peek().is("(")) {
    if (d_.kind == DirKind::Assert) return fail(peek().pos, "expected '(' after 'assert'");
    return true;
  }
  std::size_t open = i_, close;
  if (!match_paren(close)) return false;
  d_.argument = span(open + 1, close);
  if (d_.kind == DirKind::Critical && (close != open + 2 || t_[open + 1].kind != Tok::Ident))
    return fail(t_[open + 1].pos, "expected a name in 'critical(...)'");
  if (d_.kind == DirKind::Assert && (close != open + 2 || t_[open + 1].kind != Tok::String))
    return fail(t_[open + 1].pos, "expected a string in 'assert(...)'");
  if (d_.argument.empty()) return fail(t_[open].pos, "empty '(...)' after '" + d_.name + "'");
  i_ = close + 1;
  return true;
}

// A clause joulecc does not know is skipped, with its arguments, and
// reported as a warning, as Mercurium does (issue: OmpSs-1 placement
// clauses written into task pragmas through macros). `target` inside a
// task pragma is OmpSs-1's placement word: the device and copy clauses
// after it are the task's own.
bool Parser::unknown_clause(const Token& n) {
  Clause c;
  c.name = n.text;
  c.pos = n.pos;
  ++i_;
  if (!(n.text == "target" && d_.kind == DirKind::Task) && peek().is("(")) {
    std::size_t close = 0;
    if (!match_paren(close)) return false;
    c.args.push_back(span(i_ + 1, close));
    i_ = close + 1;
  }
  d_.ignored.push_back(std::move(c));
  return true;
}

// i_ is at '('; finds the matching ')', checking the nesting of () [] {}.
bool Parser::match_paren(std::size_t& close) {
  std::vector<char> open;
  for (std::size_t k = i_; k < t_.size(); ++k) {
    const Token& t = t_[k];
    if (t.kind == Tok::End) break;
    if (t.is("(") || t.is("[") || t.is("{")) open.push_back(t.text[0]);
    if (t.is(")") || t.is("]") || t.is("}")) {
      char want = open.empty() ? 0 : open.back() == '(' ? ')' : open.back() == '[' ? ']' : '}';
      if (t.text[0] != want)
        return fail(t.pos, want ? std::string("expected '") + want + "' before '" + t.text + "'"
                                : "unbalanced '" + t.text + "'");
      open.pop_back();
      if (open.empty()) {
        close = k;
        return true;
      }
    }
  }
  return fail(t_[i_].pos, "missing ')' to match this '('");
}

Expr Parser::span(std::size_t first, std::size_t last) const {
  Expr e;
  if (first >= last) {
    e.pos = e.end = t_[first].pos;
    return e;
  }
  e.text = token_span(text_, t_, first, last);
  e.pos = t_[first].pos;
  e.end = t_[last - 1].end;
  return e;
}

// Splits [first, last) at top-level commas.
std::vector<std::pair<std::size_t, std::size_t>> Parser::split(std::size_t first,
                                                               std::size_t last) const {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  int depth = 0;
  std::size_t b = first;
  for (std::size_t k = first; k < last; ++k) {
    const Token& t = t_[k];
    if (t.is("(") || t.is("[") || t.is("{"))
      ++depth;
    else if (t.is(")") || t.is("]") || t.is("}"))
      --depth;
    else if (depth == 0 && t.is(",")) {
      out.emplace_back(b, k);
      b = k + 1;
    }
  }
  out.emplace_back(b, last);
  return out;
}

bool parse_directive(const std::string& text, Directive& out, ParseError& err) {
  out = Directive{};
  std::vector<Token> toks;
  LexError le;
  if (!lex(text, toks, le)) {
    err = {le.pos, le.message};
    return false;
  }
  Parser p(text, std::move(toks), out, err);
  return p.run();
}

bool is_dependence_clause(const Clause& c) {
  static const std::set<std::string> k = {"in",          "out",       "inout", "concurrent",
                                          "commutative", "reduction", "depend"};
  return k.count(c.canonical) != 0;
}

}  // namespace joulecc
