// Tokenizer for the text of a pragma and for clause expressions. It knows C
// and C++ tokens well enough to keep expressions intact (strings, character
// literals, pp-numbers, multi-character punctuators).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace joulecc {

enum class Tok { Ident, Number, String, Char, Punct, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  unsigned pos = 0;  // index of the first character in the lexed text
  unsigned end = 0;  // index after the last character
  bool is(std::string_view p) const {
    return (kind == Tok::Punct || kind == Tok::Ident) && text == p;
  }
};

struct LexError {
  unsigned pos = 0;
  std::string message;
};

// Splits text into tokens (the last one is Tok::End at text.size()). Returns
// false and fills err on an unterminated literal or a stray character.
bool lex(std::string_view text, std::vector<Token>& out, LexError& err);

// Text of tokens [first, last) as written (the original spacing kept).
std::string token_span(std::string_view text, const std::vector<Token>& toks, std::size_t first,
                       std::size_t last);

}  // namespace joulecc
