#include "region.hpp"

#include "pragma_lexer.hpp"

namespace joulecc {
namespace {

bool is_open(const Token& t) { return t.is("(") || t.is("[") || t.is("{"); }
bool is_close(const Token& t) { return t.is(")") || t.is("]") || t.is("}"); }

class RegionParser {
 public:
  RegionParser(const Expr& item, bool colon_len, Region& r, ParseError& e)
      : item_(item), colon_len_(colon_len), r_(r), err_(e) {}

  bool run() {
    LexError le;
    if (!lex(item_.text, t_, le)) return fail(le.pos, le.message);
    n_ = t_.size() - 1;  // without End
    r_.whole = item_;
    if (n_ == 0) return fail(0, "expected a data reference");
    return parse(0, n_, true);
  }

 private:
  bool fail(unsigned pos, std::string msg) {
    err_ = {item_.pos + pos, std::move(msg)};
    return false;
  }
  Expr span(std::size_t b, std::size_t e) const {
    Expr x;
    x.pos = item_.pos + (b < t_.size() ? t_[b].pos : static_cast<unsigned>(item_.text.size()));
    if (b >= e) {
      x.end = x.pos;
      return x;
    }
    x.text = token_span(item_.text, t_, b, e);
    x.end = item_.pos + t_[e - 1].end;
    return x;
  }
  // Index of the token closing the group opened at b, or e on imbalance.
  std::size_t close_of(std::size_t b, std::size_t e) const {
    int depth = 0;
    for (std::size_t k = b; k < e; ++k) {
      if (is_open(t_[k]))
        ++depth;
      else if (is_close(t_[k]) && --depth == 0)
        return k;
    }
    return e;
  }
  std::size_t open_of(std::size_t close, std::size_t b) const {
    int depth = 0;
    for (std::size_t k = close + 1; k-- > b;) {
      if (is_close(t_[k]))
        ++depth;
      else if (is_open(t_[k]) && --depth == 0)
        return k;
    }
    return close;
  }

  bool parse(std::size_t b, std::size_t e, bool allow_paren_shape) {
    if (!balanced(b, e)) return false;
    while (b < e && t_[b].is("[")) {  // shaping
      std::size_t c = close_of(b, e);
      if (c == b + 1) return fail(t_[b].pos, "empty shaping dimension '[]'");
      r_.shape.push_back(span(b + 1, c));
      b = c + 1;
    }
    if (b == e) return fail(t_[b - 1].pos, "expected an expression after the shaping dimensions");
    if (r_.shape.empty() && allow_paren_shape && t_[b].is("(") && b + 1 < e && t_[b + 1].is("[")) {
      std::size_t c = close_of(b, e);
      if (!parse(b + 1, c, false)) return false;
      if (r_.shape.empty()) return fail(t_[b].pos, "expected a shaping expression");
      return sections_only(c + 1, e);
    }
    return base_and_sections(b, e);
  }

  bool balanced(std::size_t b, std::size_t e) {
    std::vector<std::size_t> st;
    for (std::size_t k = b; k < e; ++k) {
      if (is_open(t_[k]))
        st.push_back(k);
      else if (is_close(t_[k])) {
        if (st.empty()) return fail(t_[k].pos, "unbalanced '" + t_[k].text + "'");
        const std::string& o = t_[st.back()].text;
        bool ok = (o == "(" && t_[k].is(")")) || (o == "[" && t_[k].is("]")) ||
                  (o == "{" && t_[k].is("}"));
        if (!ok) return fail(t_[k].pos, "mismatched '" + t_[k].text + "'");
        st.pop_back();
      }
    }
    if (!st.empty()) return fail(t_[st.back()].pos, "unbalanced '" + t_[st.back()].text + "'");
    return true;
  }

  // ([n]p) followed only by bracket groups, each a section or an index.
  bool sections_only(std::size_t b, std::size_t e) {
    while (b < e) {
      if (!t_[b].is("[")) return fail(t_[b].pos, "expected '[' after a shaping expression");
      std::size_t c = close_of(b, e);
      if (!section(b, c, true)) return false;
      b = c + 1;
    }
    return true;
  }

  bool base_and_sections(std::size_t b, std::size_t e) {
    std::vector<std::size_t> opens;  // trailing bracket groups, right to left
    std::size_t end = e;
    while (end > b && t_[end - 1].is("]")) {
      std::size_t o = open_of(end - 1, b);
      if (o + 2 == end) return fail(t_[o].pos, "empty subscript '[]'");
      if (o == b) break;  // the whole base is a bracket group
      opens.push_back(o);
      end = o;
    }
    std::size_t first_section = e;
    for (std::size_t i = opens.size(); i-- > 0;) {
      std::size_t o = opens[i];
      if (separator(o + 1, close_of(o, e)) != close_of(o, e)) {
        first_section = o;
        break;
      }
    }
    if (first_section != e && !r_.shape.empty())
      return fail(t_[first_section].pos,
                  "a section of a shaped array needs parentheses: ([n]p)[lo;len]");
    std::size_t base_end = first_section;
    r_.base = span(b, base_end);
    if (b == base_end) return fail(t_[b].pos, "expected an expression before the section");
    classify_base(b, base_end);
    for (std::size_t k = first_section; k < e;) {
      std::size_t c = close_of(k, e);
      if (!section(k, c, true)) return false;
      k = c + 1;
    }
    return true;
  }

  // Position of the section separator (';' or a ':' not taken by '?') in [b, e), or e.
  std::size_t separator(std::size_t b, std::size_t e) const {
    int depth = 0, questions = 0;
    for (std::size_t k = b; k < e; ++k) {
      const Token& t = t_[k];
      if (is_open(t))
        ++depth;
      else if (is_close(t))
        --depth;
      else if (depth == 0 && t.is("?"))
        ++questions;
      else if (depth == 0 && t.is(":")) {
        if (questions > 0)
          --questions;
        else
          return k;
      } else if (depth == 0 && t.is(";")) {
        return k;
      }
    }
    return e;
  }

  bool section(std::size_t open, std::size_t close, bool) {
    Section s;
    std::size_t k = separator(open + 1, close);
    if (k == close) {
      if (close == open + 1) return fail(t_[open].pos, "empty subscript '[]'");
      s.form = Section::Form::Single;
      s.second = span(open + 1, close);
    } else {
      s.lo = span(open + 1, k);
      s.second = span(k + 1, close);
      s.form = t_[k].is(";") || colon_len_ ? Section::Form::Length : Section::Form::Upper;
      if (separator(k + 1, close) != close)
        return fail(t_[separator(k + 1, close)].pos, "more than one separator in a section");
    }
    r_.sections.push_back(std::move(s));
    return true;
  }

  void classify_base(std::size_t b, std::size_t e) {
    std::size_t k = b;
    while (k < e && (t_[k].is("*") || t_[k].is("(") || t_[k].is("::"))) ++k;
    if (k < e && t_[k].kind == Tok::Ident) {
      r_.base_name = t_[k].text;
      r_.base_name_pos = item_.pos + t_[k].pos;
    }
    r_.base_is_name = e == b + 1 && t_[b].kind == Tok::Ident;
    // lvalue shape: leading '*'s, then a postfix chain of names, '.', '->', '::'
    // and groups. A leading parenthesized group followed by an operand is a
    // cast: an lvalue only under a '*'.
    std::size_t i = b;
    while (i < e && t_[i].is("*")) ++i;
    bool deref = i > b;
    bool ok = i < e;
    bool last_call = false;
    for (std::size_t first = i; ok && i < e; ++i) {
      const Token& t = t_[i];
      if (is_open(t)) {
        std::size_t c = close_of(i, e);
        bool cast = i == first && t.is("(") && c + 1 < e && !t_[c + 1].is(".") &&
                    !t_[c + 1].is("->") && !t_[c + 1].is("[") && !t_[c + 1].is("(");
        if (cast && !deref) {
          ok = false;
          break;
        }
        last_call = t.is("(") && i > first && (t_[i - 1].kind == Tok::Ident || t_[i - 1].is(")"));
        i = c;
        continue;
      }
      last_call = false;
      if (t.kind == Tok::Ident || t.is(".") || t.is("->") || t.is("::")) continue;
      ok = false;
    }
    r_.lvalue_syntax = ok;
    r_.base_is_call = ok && last_call && !t_[b].is("*");
  }

  const Expr& item_;
  bool colon_len_;
  Region& r_;
  ParseError& err_;
  std::vector<Token> t_;
  std::size_t n_ = 0;
};

}  // namespace

namespace {

Expr token_expr(const Expr& item, const std::vector<Token>& t, std::size_t b, std::size_t e) {
  Expr x;
  x.pos = item.pos + t[b].pos;
  x.end = x.pos;
  if (b < e) {
    x.text = token_span(item.text, t, b, e);
    x.end = item.pos + t[e - 1].end;
  }
  return x;
}

// Top-level positions of the tokens in [b, e) that match one of seps.
std::vector<std::size_t> split_at(const std::vector<Token>& t, std::size_t b, std::size_t e,
                                  std::initializer_list<const char*> seps) {
  std::vector<std::size_t> out;
  int depth = 0;
  for (std::size_t k = b; k < e; ++k) {
    if (is_open(t[k])) ++depth;
    if (is_close(t[k])) --depth;
    for (const char* s : seps)
      if (depth == 0 && t[k].is(s)) out.push_back(k);
  }
  return out;
}

// `i = lo;len[:step]` or `i = lo:hi[:step]` in tokens [b, e).
bool parse_iterator(const Expr& item, const std::vector<Token>& t, std::size_t b, std::size_t e,
                    MultiIter& it, ParseError& err) {
  if (e < b + 3 || t[b].kind != Tok::Ident || !t[b + 1].is("=")) {
    err = {item.pos + t[b].pos, "expected 'name = lower;size' or 'name = lower:upper'"};
    return false;
  }
  it.name = t[b].text;
  std::vector<std::size_t> cut = split_at(t, b + 2, e, {";", ":"});
  if (cut.empty() || cut.size() > 2 || (cut.size() == 2 && !t[cut[1]].is(":"))) {
    err = {item.pos + t[b].pos,
           "expected 'name = lower;size[:step]' or 'name = lower:upper[:step]'"};
    return false;
  }
  it.upper = t[cut[0]].is(":");
  std::size_t end2 = cut.size() == 2 ? cut[1] : e;
  it.lo = token_expr(item, t, b + 2, cut[0]);
  it.second = token_expr(item, t, cut[0] + 1, end2);
  if (cut.size() == 2) it.step = token_expr(item, t, cut[1] + 1, e);
  if (it.lo.empty() || it.second.empty() || (cut.size() == 2 && it.step.empty())) {
    err = {item.pos + t[b].pos, "the iterator '" + it.name + "' needs its bounds"};
    return false;
  }
  return true;
}

// OmpSs-2 multidependencies (specification, "Multidependencies"):
// `{data-reference, iterator, ...}`, one region per iterator value.
bool parse_multidep(const Expr& item, bool colon_is_length, Region& out, ParseError& err) {
  std::vector<Token> t;
  LexError le;
  if (!lex(item.text, t, le)) {
    err = {item.pos + le.pos, le.message};
    return false;
  }
  std::size_t n = t.size() - 1;
  if (n < 2 || !t[n - 1].is("}")) {
    err = {item.pos, "a multidependency is '{data-reference, name = lower;size}'"};
    return false;
  }
  std::vector<std::size_t> commas = split_at(t, 1, n - 1, {","});
  if (commas.empty()) {
    err = {item.pos, "a multidependency needs an iterator: '{v[i], i = 0;n}'"};
    return false;
  }
  std::vector<MultiIter> iters;
  for (std::size_t k = 0; k < commas.size(); ++k) {
    MultiIter it;
    std::size_t e = k + 1 < commas.size() ? commas[k + 1] : n - 1;
    if (!parse_iterator(item, t, commas[k] + 1, e, it, err)) return false;
    iters.push_back(std::move(it));
  }
  Expr ref = token_expr(item, t, 1, commas[0]);
  if (ref.empty() || ref.text.front() == '{') {
    err = {item.pos, "expected a data reference in the multidependency"};
    return false;
  }
  if (!parse_region(ref, colon_is_length, out, err)) return false;
  out.whole = item;
  out.iters = std::move(iters);
  return true;
}

}  // namespace

bool parse_region(const Expr& item, bool colon_is_length, Region& out, ParseError& err) {
  if (!item.text.empty() && item.text.front() == '{')
    return parse_multidep(item, colon_is_length, out, err);
  out = Region{};
  RegionParser p(item, colon_is_length, out, err);
  return p.run();
}

std::string rename_identifiers(const std::string& text,
                               const std::vector<std::pair<std::string, std::string>>& renames) {
  if (renames.empty()) return text;
  std::vector<Token> toks;
  LexError le;
  if (!lex(text, toks, le)) return text;
  std::string out;
  unsigned at = 0;
  for (std::size_t i = 0; i + 1 < toks.size(); ++i) {
    const Token& t = toks[i];
    if (t.kind != Tok::Ident) continue;
    if (i > 0 && (toks[i - 1].is(".") || toks[i - 1].is("->") || toks[i - 1].is("::"))) continue;
    for (const auto& [from, to] : renames) {
      if (t.text != from) continue;
      out.append(text, at, t.pos - at);
      out += to;
      at = t.end;
      break;
    }
  }
  out.append(text, at, std::string::npos);
  return out;
}

}  // namespace joulecc
