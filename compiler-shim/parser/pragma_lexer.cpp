#include "pragma_lexer.hpp"

#include <array>

namespace joulecc {
namespace {

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;  // UTF-8 identifiers pass through
}
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool space(char c) {
  return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' || c == '\n';
}

// Longest punctuator first.
constexpr std::array<std::string_view, 26> kPunct3or2 = {
    "<<=", ">>=", "...", "->*", "<=>", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
    "!=",  "&&",  "||",  "*=",  "/=",  "%=", "+=", "-=", "&=", "^=", "|=", "::", "##"};
constexpr std::string_view kPunct1 = "[](){}.&*+-~!/%<>^|?:;=,#";

// pp-number: digits, letters, '.', and e+/e-/p+/p- pairs; also digit separators.
unsigned lex_number(std::string_view t, unsigned i) {
  ++i;
  while (i < t.size()) {
    char c = t[i];
    if ((c == '+' || c == '-') &&
        (t[i - 1] == 'e' || t[i - 1] == 'E' || t[i - 1] == 'p' || t[i - 1] == 'P')) {
      ++i;
    } else if (ident_char(c) || c == '.' ||
               (c == '\'' && i + 1 < t.size() && ident_char(t[i + 1]))) {
      ++i;
    } else {
      break;
    }
  }
  return i;
}

// A literal with an optional encoding prefix already consumed; i is at the quote.
bool lex_quoted(std::string_view t, unsigned& i, LexError& err) {
  char q = t[i];
  unsigned start = i++;
  while (i < t.size() && t[i] != q) {
    if (t[i] == '\\') ++i;
    if (i < t.size() && t[i] == '\n') break;
    ++i;
  }
  if (i >= t.size() || t[i] != q) {
    err = {start,
           q == '"' ? "missing terminating '\"' character" : "missing terminating ' character"};
    return false;
  }
  ++i;
  return true;
}

}  // namespace

bool lex(std::string_view t, std::vector<Token>& out, LexError& err) {
  out.clear();
  unsigned i = 0;
  while (true) {
    while (i < t.size() && space(t[i])) ++i;
    if (i >= t.size()) break;
    Token tok;
    tok.pos = i;
    char c = t[i];
    // Encoding prefixes of literals: u8"", u"", U"", L"", and the same for chars.
    unsigned p = i;
    while (p < t.size() && p - i < 2 && (t[p] == 'u' || t[p] == 'U' || t[p] == 'L' || t[p] == '8'))
      ++p;
    bool prefixed = p > i && p < t.size() && (t[p] == '"' || t[p] == '\'') && t[i] != '8';
    if (prefixed || c == '"' || c == '\'') {
      unsigned q = prefixed ? p : i;
      tok.kind = t[q] == '"' ? Tok::String : Tok::Char;
      i = q;
      if (!lex_quoted(t, i, err)) return false;
    } else if (ident_start(c)) {
      tok.kind = Tok::Ident;
      while (i < t.size() && ident_char(t[i])) ++i;
    } else if (digit(c) || (c == '.' && i + 1 < t.size() && digit(t[i + 1]))) {
      tok.kind = Tok::Number;
      i = lex_number(t, i);
    } else {
      tok.kind = Tok::Punct;
      unsigned len = 0;
      for (std::string_view p3 : kPunct3or2)
        if (t.substr(i, p3.size()) == p3) {
          len = static_cast<unsigned>(p3.size());
          break;
        }
      if (len == 0 && kPunct1.find(c) != std::string_view::npos) len = 1;
      if (len == 0) {
        err = {i, std::string("invalid character '") +
                      (c >= 32 && c < 127 ? std::string(1, c) : "?") + "' in pragma"};
        return false;
      }
      i += len;
    }
    tok.end = i;
    tok.text = std::string(t.substr(tok.pos, i - tok.pos));
    out.push_back(std::move(tok));
  }
  Token end;
  end.kind = Tok::End;
  end.pos = end.end = static_cast<unsigned>(t.size());
  out.push_back(end);
  return true;
}

std::string token_span(std::string_view text, const std::vector<Token>& toks, std::size_t first,
                       std::size_t last) {
  if (first >= last || first >= toks.size()) return {};
  unsigned b = toks[first].pos;
  unsigned e = toks[last - 1].end;
  return std::string(text.substr(b, e - b));
}

}  // namespace joulecc
