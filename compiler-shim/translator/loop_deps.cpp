// Taskloop dependencies that use the loop variable (`in(a[i])`,
// `out(b[i*bs; bs])`). OmpSs-2 (specification, "taskloop construct") gives
// each chunk the dependencies of its own iterations. joulecc supports
// subscripts affine in the loop variable: over a chunk such a subscript
// is monotonic, so its values at the chunk's first and last iterations
// bound it, and each chunk registers the section between them (a superset
// when the subscript skips elements, which only orders more).
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
};

bool mentions(const std::string& text, const std::set<std::string>& vars) {
  std::vector<Token> toks;
  LexError le;
  if (!lex(text, toks, le)) return false;
  for (std::size_t i = 0; i < toks.size(); ++i)
    if (toks[i].kind == Tok::Ident && vars.count(toks[i].text) &&
        !(i > 0 && (toks[i - 1].is(".") || toks[i - 1].is("->"))))
      return true;
  return false;
}

// "" when e is affine (or invariant) in vars, else why not.
std::string affine(const Expr& e, const std::set<std::string>& vars) {
  if (e.empty() || !mentions(e.text, vars)) return {};
  std::vector<Token> toks;
  LexError le;
  if (!lex(e.text, toks, le)) return le.message;
  std::string why;
  return Affine(toks, vars).run(why) < 0 ? why : std::string();
}

std::set<std::string> loop_var_names(const Construct& c) {
  std::set<std::string> v;
  for (const LoopLevel& l : c.loop) v.insert(l.var);
  return v;
}

void check_region(const Construct& c, const RegionRef& r, const std::set<std::string>& vars,
                  std::vector<DepProblem>& out) {
  const Region& g = r.region;
  const std::string var = c.loop[0].var;
  auto problem = [&](unsigned pos, const std::string& what) {
    out.push_back({pos, "taskloop dependency on '" + g.whole.text + "': " + what});
  };
  if (c.loop.size() > 1) return problem(g.whole.pos, "loop variables need collapse(1)");
  if (r.kind == "reduction") return problem(g.whole.pos, "a reduction cannot use '" + var + "'");
  if (mentions(g.base.text, vars)) return problem(g.base.pos, "the base cannot use '" + var + "'");
  for (const Expr& e : g.shape)
    if (mentions(e.text, vars)) return problem(e.pos, "a shape cannot use '" + var + "'");
  for (const Section& s : g.sections) {
    if (s.form == Section::Form::Length && mentions(s.second.text, vars))
      return problem(s.second.pos, "a section length cannot use '" + var + "'");
    for (const Expr* e : {&s.lo, &s.second})
      if (std::string why = affine(*e, vars); !why.empty())
        return problem(e->pos, "the subscript must be affine in '" + var + "' (" + why + ")");
  }
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

}  // namespace

std::vector<DepProblem> check_loop_deps(Construct& c) {
  std::vector<DepProblem> out;
  if (c.kind != CKind::Taskloop || c.loop.empty()) return out;
  const std::set<std::string> vars = loop_var_names(c);
  for (RegionRef& r : c.deps) {
    if (!mentions(r.region.whole.text, vars)) continue;
    c.loop_deps = true;
    peel_subscripts(r.region, vars);
    check_region(c, r, vars, out);
  }
  return out;
}

// r over the iterations [__jif, __jil] of a chunk: each section bound that
// uses the loop variable becomes the lowest (highest) of its values there.
RegionRef Generator::chunk_region(const Construct& c, const RegionRef& r) const {
  const std::set<std::string> vars = loop_var_names(c);
  RegionRef out = r;
  if (!mentions(r.region.whole.text, vars)) return out;
  const std::string& v = c.loop[0].var;
  auto at = [&](const Expr& e, const char* val) {
    return rename_identifiers(e.text, {{v, std::string("(") + val + ")"}});
  };
  auto lowest = [&](const Expr& e) { return min_max("<", at(e, "__jif"), at(e, "__jil")); };
  auto highest = [&](const Expr& e) { return min_max(">", at(e, "__jif"), at(e, "__jil")); };
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
std::string Generator::chunk_bounds(const Construct& c, const std::string& pre) const {
  const LoopLevel& lv = c.loop[0];
  std::string t = lv.var_decl.substr(0, lv.var_decl.find('@'));
  while (!t.empty() && t.back() == ' ') t.pop_back();
  const std::string type = "(" + t + ")";
  return "const " + t + " __jif = " + type + "(" + pre + "lo0 + __jcb * " + pre +
         "st0), __jil = " + type + "(" + pre + "lo0 + (__jce - 1) * " + pre + "st0);\n";
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
// with every other access), not one at a time.
std::string Generator::chunk_deps(const Construct& c, const Scope& s) {
  std::vector<RegionRef> list;
  for (const RegionRef& r : c.deps) {
    list.push_back(chunk_region(c, r));
    if (r.kind == "reduction") list.back().kind = "concurrent";
  }
  return deps(c, list, s);
}

}  // namespace joulecc
