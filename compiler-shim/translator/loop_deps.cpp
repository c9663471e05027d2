// Taskloop dependencies that use the loop variable (`in(a[i])`,
// `out(b[i*bs; bs])`). OmpSs-2 (specification, "taskloop construct") gives
// each chunk the dependencies of its own iterations. joulecc supports
// subscripts affine in the loop variable: over a chunk such a subscript
// is monotonic, so its values at the chunk's first and last iterations
// bound it, and each chunk registers the section between them (a superset
// when the subscript skips elements, which only orders more).
//
// A collapsed nest (`collapse(2) in(a[i][j])`) runs its iterations in one
// linear order, the last loop fastest. A chunk's iterations lie in a box:
// each variable between its values at the chunk's first and last
// iterations when the chunk stays inside one iteration of the loops around
// it, else over its whole range. A bound affine in several variables
// (`a[i*m + j]`) is the sum of one term per variable, so its extremes over
// the box are its value at the box's first corner plus, per variable, the
// change (when negative, resp. positive) from moving that variable alone to
// its other end.
//
// Any other use of a loop variable (an index array, `%`, a section length,
// a multidependency's range) is evaluated as written for each iteration
// of the chunk (per_iteration_region): exact, at a cost per iteration.
#include <set>

#include "../parser/pragma_lexer.hpp"
#include "codegen.hpp"

namespace joulecc {
namespace {

// Degree of an expression in the loop variables (0 invariant, 1 affine);
// a recursive descent over + - * / and primaries, anything else that
// involves the variable fails with a reason.
class Affine {
 public:
  Affine(const std::vector<Token>& t, const std::set<std::string>& vars) : t_(t), vars_(vars) {}
  int run(std::string& why) {
    int d = additive();
    if (!why_.empty() || !at("")) return fail_text(why);
    why = why_;
    return d;
  }
  // A quotient of a term that uses a loop variable (`(i + j) / 2`).
  bool divides() const { return divides_; }

 private:
  bool at(const char* p) const { return p[0] ? t_[i_].is(p) : t_[i_].kind == Tok::End; }
  int fail(const std::string& w) {
    if (why_.empty()) why_ = w;
    return -1;
  }
  int fail_text(std::string& why) {
    why = why_.empty() ? "only +, -, and * or / by a loop-invariant value are supported" : why_;
    return -1;
  }
  int additive() {
    int d = term();
    while (why_.empty() && (at("+") || at("-"))) {
      ++i_;
      d = std::max(d, term());
    }
    return d;
  }
  int term() {
    int d = unary();
    while (why_.empty() && (at("*") || at("/") || at("%"))) {
      std::string op = t_[i_++].text;
      int r = unary();
      if (op == "*" && d + r > 1)
        return fail("the subscript multiplies the loop variable by itself");
      if (op != "*" && (r > 0 || (op == "%" && d > 0)))
        return fail("'" + op + "' makes the subscript non-monotonic in the loop variable");
      divides_ = divides_ || (op == "/" && d > 0);
      d = op == "*" ? d + r : d;
    }
    return d;
  }
  int unary() {
    if (at("+") || at("-")) {
      ++i_;
      return unary();
    }
    return postfix(primary());
  }
  // (type)x: a parenthesised list of names followed by an operand.
  bool cast_ahead() const {
    std::size_t k = i_ + 1;
    while (t_[k].kind == Tok::Ident) ++k;
    if (k == i_ + 1 || !t_[k].is(")")) return false;
    const Token& n = t_[k + 1];
    return n.kind == Tok::Ident || n.kind == Tok::Number || n.is("(");
  }
  int primary() {
    const Token& tk = t_[i_];
    if (tk.kind == Tok::Number || tk.kind == Tok::Char) return ++i_, 0;
    if (tk.is("(")) {
      if (cast_ahead()) {
        while (!at(")")) ++i_;
        ++i_;
        return unary();
      }
      ++i_;
      int d = additive();
      if (!at(")")) return fail("");
      ++i_;
      return d;
    }
    if (tk.kind != Tok::Ident) return fail("");
    ++i_;
    if (!at("(")) return vars_.count(tk.text) ? 1 : 0;
    for (++i_; why_.empty() && !at(")") && !at("");) {  // a call: invariant arguments only
      if (additive() > 0) return fail("the loop variable is passed to a function");
      if (at(",")) ++i_;
    }
    return at(")") ? (++i_, 0) : fail("");
  }
  int postfix(int d) {
    while (why_.empty()) {
      if (at("[")) {
        ++i_;
        int k = additive();
        if (!at("]")) return fail("");
        ++i_;
        if (d > 0 || k > 0) return fail("the loop variable indexes another array");
      } else if (at(".") || at("->")) {
        i_ += 2;
        if (d > 0) return fail("");
      } else {
        return d;
      }
    }
    return -1;
  }

  const std::vector<Token>& t_;
  const std::set<std::string>& vars_;
  std::size_t i_ = 0;
  std::string why_;
  bool divides_ = false;
};

// The loop variables that text names (not as members after `.`/`->`).
std::set<std::string> used_vars(const std::string& text, const std::set<std::string>& vars) {
  std::set<std::string> used;
  std::vector<Token> toks;
  LexError le;
  if (!lex(text, toks, le)) return used;
  for (std::size_t i = 0; i < toks.size(); ++i)
    if (toks[i].kind == Tok::Ident && vars.count(toks[i].text) &&
        !(i > 0 && (toks[i - 1].is(".") || toks[i - 1].is("->"))))
      used.insert(toks[i].text);
  return used;
}

bool mentions(const std::string& text, const std::set<std::string>& vars) {
  return !used_vars(text, vars).empty();
}

// "" when e is affine (or invariant) in vars, else why not.
std::string affine(const Expr& e, const std::set<std::string>& vars) {
  if (e.empty() || !mentions(e.text, vars)) return {};
  std::vector<Token> toks;
  LexError le;
  if (!lex(e.text, toks, le)) return le.message;
  std::string why;
  Affine a(toks, vars);
  if (a.run(why) < 0) return why;
  // Rounding breaks the term-by-term bound of a collapsed nest (see the top).
  if (a.divides() && used_vars(e.text, vars).size() > 1)
    return "'/' over several loop variables: joulecc bounds a subscript one variable at a time";
  return {};
}

// 'i' for one loop, 'i', 'j' for a collapsed nest (the messages' subject).
std::string var_list(const Construct& c) {
  std::string t;
  for (const LoopLevel& l : c.loop) t += (t.empty() ? "'" : ", '") + l.var + "'";
  return t;
}

std::set<std::string> loop_var_names(const Construct& c) {
  std::set<std::string> v;
  for (const LoopLevel& l : c.loop) v.insert(l.var);
  return v;
}

// Whether a chunk's section of r can be bounded from the loop variables'
// first and last values (the fast path): bases, shapes, lengths and
// multidependency ranges free of them, subscripts affine in them.
bool boundable(const RegionRef& r, const Region& g, const std::set<std::string>& vars) {
  for (const MultiIter& it : g.iters)
    for (const Expr* e : {&it.lo, &it.second, &it.step})
      if (mentions(e->text, vars)) return false;
  if (mentions(g.base.text, vars)) return false;
  for (const Expr& e : g.shape)
    if (mentions(e.text, vars)) return false;
  for (const Section& s : g.sections) {
    if (s.form == Section::Form::Length && mentions(s.second.text, vars)) return false;
    for (const Expr* e : {&s.lo, &s.second})
      if (!affine(*e, vars).empty()) return false;
  }
  // The bounded section is one block (strided) only when every level after
  // the first that uses the variable indexes an array, not through a
  // pointer (`rows[i][0; n]` with `double **rows`: each row elsewhere).
  if (!g.shape.empty()) return true;  // a shape lays its dimensions out as one array
  std::size_t first = g.sections.size();
  for (std::size_t i = 0; i < g.sections.size() && first == g.sections.size(); ++i)
    if (mentions(g.sections[i].lo.text, vars) || mentions(g.sections[i].second.text, vars))
      first = i;
  for (std::size_t i = first + 1; i < g.sections.size(); ++i)
    if (!g.base_is_name || i >= r.ptr_levels.size() || r.ptr_levels[i]) return false;
  return true;
}

bool uses_loop_var(const Region& g, const std::set<std::string>& vars) {
  if (mentions(g.whole.text, vars)) return true;
  for (const MultiIter& it : g.iters)
    for (const Expr* e : {&it.lo, &it.second, &it.step})
      if (mentions(e->text, vars)) return true;
  return false;
}

std::string min_max(const char* op, const std::string& a, const std::string& b) {
  return "((" + a + ") " + op + " (" + b + ") ? (" + a + ") : (" + b + "))";
}

// `a[f(i)]` parses as one lvalue; its trailing subscripts that use the
// loop variable become one-element sections, which chunk_region can widen.
void peel_subscripts(Region& g, const std::set<std::string>& vars) {
  while (g.shape.empty() && mentions(g.base.text, vars)) {
    std::vector<Token> t;
    LexError le;
    if (!lex(g.base.text, t, le) || t.size() < 4 || !t[t.size() - 2].is("]")) return;
    std::size_t close = t.size() - 2, open = close;
    for (int depth = 0; open-- > 0;) {
      if (t[open].is("]")) ++depth;
      if (t[open].is("[") && depth-- == 0) break;
    }
    if (open == 0 || open > close) return;
    Section sec;
    sec.second.text = token_span(g.base.text, t, open + 1, close);
    sec.second.pos = g.base.pos + t[open + 1].pos;
    sec.second.end = g.base.pos + t[close - 1].end;
    g.sections.insert(g.sections.begin(), sec);
    g.base.text = token_span(g.base.text, t, 0, open);
    g.base.end = g.base.pos + t[open - 1].end;
    g.base_is_name = open == 1 && t[0].kind == Tok::Ident;
  }
}

// The lowest (op "<") or highest (">") value of bound e over the chunk: one
// loop, between its values at __jif and __jil; a collapsed nest, over the
// box [__jif<l>, __jil<l>] (see the top of the file).
std::string bound_over_chunk(const Construct& c, const Expr& e, const char* op) {
  if (c.loop.size() == 1) {
    const std::string& v = c.loop[0].var;
    return min_max(op, rename_identifiers(e.text, {{v, "(__jif)"}}),
                   rename_identifiers(e.text, {{v, "(__jil)"}}));
  }
  const std::set<std::string> used = used_vars(e.text, loop_var_names(c));
  std::vector<std::pair<std::string, std::string>> first;
  for (std::size_t l = 0; l < c.loop.size(); ++l)
    if (used.count(c.loop[l].var))
      first.push_back({c.loop[l].var, "(__jif" + std::to_string(l) + ")"});
  const std::string base = "(" + rename_identifiers(e.text, first) + ")";
  if (first.size() == 1) {
    first[0].second.replace(0, 6, "(__jil");
    return min_max(op, base, rename_identifiers(e.text, first));
  }
  std::string t = base;
  for (std::size_t m = 0; m < first.size(); ++m) {
    auto moved = first;
    moved[m].second.replace(0, 6, "(__jil");  // this variable alone at its other end
    const std::string delta = "((" + rename_identifiers(e.text, moved) + ") - " + base + ")";
    t += " + " + min_max(op, delta, "0");
  }
  return "(" + t + ")";
}

}  // namespace

std::vector<DepProblem> check_loop_deps(Construct& c) {
  std::vector<DepProblem> out;
  if (c.kind != CKind::Taskloop || c.loop.empty()) return out;
  const std::set<std::string> vars = loop_var_names(c);
  for (RegionRef& r : c.deps) {
    if (!uses_loop_var(r.region, vars)) continue;
    c.loop_deps = true;
    if (r.kind == "reduction") {
      out.push_back({r.region.whole.pos, "taskloop dependency on '" + r.region.whole.text +
                                             "': a reduction cannot use " + var_list(c)});
      continue;
    }
    Region peeled = r.region;
    peel_subscripts(peeled, vars);
    if (boundable(r, peeled, vars))
      r.region = peeled;
    else
      r.per_iteration = true;  // as written, once per iteration (Generator::chunk_deps)
  }
  return out;
}

// r over the iterations of a chunk: each section bound that uses a loop
// variable becomes the lowest (highest) of its values there.
RegionRef Generator::chunk_region(const Construct& c, const RegionRef& r) const {
  const std::set<std::string> vars = loop_var_names(c);
  RegionRef out = r;
  if (r.per_iteration || !mentions(r.region.whole.text, vars)) return out;
  auto lowest = [&](const Expr& e) { return bound_over_chunk(c, e, "<"); };
  auto highest = [&](const Expr& e) { return bound_over_chunk(c, e, ">"); };
  for (Section& s : out.region.sections) {
    if (!mentions(s.lo.text, vars) && !mentions(s.second.text, vars)) continue;
    if (s.form == Section::Form::Single) {
      s.form = Section::Form::Upper;
      s.lo = {lowest(s.second), s.second.pos, s.second.end};
      s.second.text = highest(s.second);
    } else if (s.form == Section::Form::Length) {  // [lo; len]: len is invariant
      std::string lo = lowest(s.lo);
      s.second.text = "(" + s.second.text + ") + (" + highest(s.lo) + " - " + lo + ")";
      s.lo.text = lo;
    } else {
      if (!s.lo.empty()) s.lo.text = lowest(s.lo);
      s.second.text = highest(s.second);
    }
  }
  return out;
}

// The first and last values of the loop variable in chunk [__jcb, __jce).
// In a collapsed nest, level l's index is (k / span) % n for linear index k
// (span: the iterations of the levels inside it); within one iteration of
// the levels around it the chunk runs an interval of those, else it may
// run them all.
std::string Generator::chunk_bounds(const Construct& c, const std::string& pre) const {
  std::string out, span = "1";
  for (std::size_t l = c.loop.size(); l-- > 0;) {
    const LoopLevel& lv = c.loop[l];
    std::string t = lv.var_decl.substr(0, lv.var_decl.find('@'));
    while (!t.empty() && t.back() == ' ') t.pop_back();
    const std::string type = "(" + t + ")", k = std::to_string(l), n = pre + "n" + k;
    if (c.loop.size() == 1) {
      out += "const " + t + " __jif = " + type + "(" + pre + "lo0 + __jcb * " + pre +
             "st0), __jil = " + type + "(" + pre + "lo0 + (__jce - 1) * " + pre +
             "st0);\n(void)__jif; (void)__jil;\n";
      break;
    }
    const std::string whole = "(" + span + ") * " + n;
    std::string first = "(__jcb / (" + span + ")) % " + n,
                last = "((__jce - 1) / (" + span + ")) % " + n;
    if (l > 0) {
      const std::string inside = "(__jcb / (" + whole + ") == (__jce - 1) / (" + whole + "))";
      first = "(" + inside + " ? " + first + " : 0)";
      last = "(" + inside + " ? " + last + " : " + n + " - 1)";
    }
    out += "const " + t + " __jif" + k + " = " + type + "(" + pre + "lo" + k + " + " + first +
           " * " + pre + "st" + k + "), __jil" + k + " = " + type + "(" + pre + "lo" + k + " + " +
           last + " * " + pre + "st" + k + ");\n(void)__jif" + k + "; (void)__jil" + k + ";\n";
    span = whole;
  }
  return out;
}

// The grain of a taskloop whose chunks are created here: grainsize, else
// chunksize (OmpSs-2's name for it), else four chunks per worker as
// joule_taskloop does.
std::string Generator::chunk_loop(const Construct& c, const Scope& s, const std::string& n,
                                  const std::string& g) const {
  std::string t;
  if (!c.dir.find("grainsize") && !c.dir.find("num_tasks"))
    if (const Clause* cs = c.dir.find("chunksize"))
      t += g + " = (int64_t)(" + user(c, cs->args[0], s) + ");\n";
  t += "if (" + g + " <= 0) " + g + " = joule_oss_grain_for_tasks(" + n +
       ", 4 * (int64_t)joule_num_workers());\n";
  return t + "for (int64_t __jcb = 0; __jcb < " + n + "; __jcb += " + g +
         ") {\nconst int64_t __jce = " + n + " - __jcb <= " + g + " ? " + n + " : __jcb + " + g +
         ";\n";
}

// The chunks of one taskloop combine their reduction copies under a lock,
// so on the reduced data they are concurrent with each other (and ordered
// with every other access), not one at a time: a reduction with its
// operator (loop_reduction), else a concurrent access.
std::string Generator::chunk_deps(const Construct& c, const Scope& s) {
  std::vector<RegionRef> list;
  std::string each;
  for (const RegionRef& r : c.deps) {
    if (r.per_iteration) {
      each += per_iteration_region(c, r, s);
      continue;
    }
    list.push_back(chunk_region(c, r));
    if (r.kind == "reduction" && !loop_reduction(c, r)) list.back().kind = "concurrent";
  }
  return deps(c, list, s) + each;
}

// A dependency the chunk's bounds cannot bound, as written, for each
// iteration of chunk [__jcb, __jce): the loop variables declared with the
// iteration's values hide the creator's (exact; a chunk then holds one
// entry per iteration and element, adjacent ones merged by joule_oss_dep).
std::string Generator::per_iteration_region(const Construct& c, const RegionRef& r,
                                            const Scope& s) {
  Scope in = s;
  auto& names = in.by_name;
  for (const LoopLevel& lv : c.loop)
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&](const auto& p) { return p.first == lv.var; }),
                names.end());
  std::string unused;  // a collapsed nest's variables the region does not use
  for (const LoopLevel& lv : c.loop) unused += "(void)" + lv.var + ";\n";
  return "for (int64_t __jk = __jcb; __jk < __jce; ++__jk) {\n" +
         loop_indices(c, m_.lang == Lang::Cxx) + unused + region(c, r, in) + "}\n";
}

}  // namespace joulecc
