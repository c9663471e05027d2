// Data references of dependence clauses: `x`, `*p`, `p->f`, `a[i]`, array
// sections `a[lo;len]` / `a[lo:hi]` (inclusive; `depend` uses [lo:len]),
// multi-dimensional sections, and shaping `[n][m]p` / `([n][m]p)[i;k]`.
#pragma once

#include <string>
#include <vector>

#include "directive.hpp"

namespace joulecc {

struct Section {
  enum class Form { Single, Length, Upper };
  Form form = Form::Single;
  Expr lo;      // empty: 0
  Expr second;  // the length (Length), the inclusive upper bound (Upper) or the index (Single);
                // empty with Length/Upper: up to the end of the dimension
};

// An iterator of a multidependency `{ref, i = lo;len}` / `{ref, i = lo:hi}`,
// optionally `:step`.
struct MultiIter {
  std::string name;
  Expr lo, second, step;  // second: the length, or the inclusive upper bound
  bool upper = false;
};

struct Region {
  Expr whole;
  std::vector<MultiIter> iters;   // a multidependency: one region per iterator value
  std::vector<Expr> shape;        // shaping dimensions, outermost first
  Expr base;                      // what the shape or the sections apply to
  std::vector<Section> sections;  // outermost first
  std::string base_name;          // first identifier of the base ("" if none)
  unsigned base_name_pos = 0;
  bool lvalue_syntax = false;  // the base can name an object (no operators at its top level)
  bool base_is_call = false;   // the base is `f(...)`: an lvalue only in C++ (references)
  bool base_is_name = false;   // the base is exactly one identifier
};

// Parses the text of one clause item. In `depend(...)` colon_is_length is
// true (OpenMP: [lower : length]); in OmpSs clauses [lower : upper].
bool parse_region(const Expr& item, bool colon_is_length, Region& out, ParseError& err);

// Replaces identifiers of text (not member names after `.`/`->`) found in
// renames by their mapped text. Used for clause expressions evaluated inside
// outlined C code where shared variables are reached through pointers.
std::string rename_identifiers(const std::string& text,
                               const std::vector<std::pair<std::string, std::string>>& renames);

}  // namespace joulecc
