// Parser for `#pragma oss ...` and the OmpSs subset of `#pragma omp ...`.
#include <algorithm>
#include <set>
#include <vector>

#include "directive.hpp"
#include "pragma_lexer.hpp"

namespace joulecc {
namespace {

enum : unsigned { kTask = 1, kLoop = 2, kWait = 4, kRelease = 8, kTarget = 16, kCritical = 32 };
constexpr unsigned kTaskLike = kTask | kLoop;

struct ClauseSpec {
  const char* name;
  const char* canonical;
  ArgForm form;
  unsigned dirs;
  bool weak;
  bool once;
};

constexpr ClauseSpec kClauses[] = {
    {"if", "if", ArgForm::Expr1, kTaskLike, false, true},
    {"final", "final", ArgForm::Expr1, kTaskLike, false, true},
    {"priority", "priority", ArgForm::Expr1, kTaskLike, false, true},
    {"label", "label", ArgForm::Expr1, kTaskLike, false, true},
    {"cost", "cost", ArgForm::Expr1, kTaskLike, false, true},
    {"default", "default", ArgForm::Default, kTaskLike, false, true},
    {"private", "private", ArgForm::Names, kTaskLike, false, false},
    {"firstprivate", "firstprivate", ArgForm::Names, kTaskLike, false, false},
    {"shared", "shared", ArgForm::Names, kTaskLike, false, false},
    {"in", "in", ArgForm::Regions, kTaskLike | kWait | kRelease, false, false},
    {"out", "out", ArgForm::Regions, kTaskLike | kWait | kRelease, false, false},
    {"inout", "inout", ArgForm::Regions, kTaskLike | kWait | kRelease, false, false},
    {"input", "in", ArgForm::Regions, kTaskLike | kWait | kRelease, false, false},
    {"output", "out", ArgForm::Regions, kTaskLike | kWait | kRelease, false, false},
    {"on", "inout", ArgForm::Regions, kWait, false, false},
    {"concurrent", "concurrent", ArgForm::Regions, kTaskLike, false, false},
    {"commutative", "commutative", ArgForm::Regions, kTaskLike, false, false},
    {"weakin", "in", ArgForm::Regions, kTaskLike | kRelease, true, false},
    {"weakout", "out", ArgForm::Regions, kTaskLike | kRelease, true, false},
    {"weakinout", "inout", ArgForm::Regions, kTaskLike | kRelease, true, false},
    {"weakconcurrent", "concurrent", ArgForm::Regions, kTaskLike, true, false},
    {"weakcommutative", "commutative", ArgForm::Regions, kTaskLike, true, false},
    {"reduction", "reduction", ArgForm::Reduction, kTaskLike, false, false},
    {"weakreduction", "reduction", ArgForm::Reduction, kTaskLike, true, false},
    {"in_reduction", "reduction", ArgForm::Reduction, kTask, false, false},
    {"depend", "depend", ArgForm::Depend, kTaskLike | kWait | kRelease, false, false},
    {"device", "device", ArgForm::Device, kTaskLike | kTarget, false, true},
    {"copy_in", "copy_in", ArgForm::Regions, kTaskLike | kTarget, false, false},
    {"copy_out", "copy_out", ArgForm::Regions, kTaskLike | kTarget, false, false},
    {"copy_inout", "copy_inout", ArgForm::Regions, kTaskLike | kTarget, false, false},
    {"copy_deps", "copy_deps", ArgForm::None, kTaskLike | kTarget, false, true},
    {"no_copy_deps", "no_copy_deps", ArgForm::None, kTaskLike | kTarget, false, true},
    {"implements", "implements", ArgForm::Expr1, kTaskLike | kTarget, false, true},
    {"untied", "untied", ArgForm::None, kTaskLike, false, true},
    {"tied", "tied", ArgForm::None, kTaskLike, false, true},
    {"mergeable", "mergeable", ArgForm::None, kTaskLike, false, true},
    {"wait", "wait", ArgForm::None, kTaskLike, false, true},
    {"grainsize", "grainsize", ArgForm::Expr1, kLoop, false, true},
    {"num_tasks", "num_tasks", ArgForm::Expr1, kLoop, false, true},
    {"collapse", "collapse", ArgForm::Expr1, kLoop, false, true},
    {"chunksize", "chunksize", ArgForm::Expr1, kLoop, false, true},
    {"nogroup", "nogroup", ArgForm::None, kLoop, false, true},
    {"noflush", "noflush", ArgForm::None, kWait, false, true},
    {"hint", "hint", ArgForm::Expr1, kCritical, false, true},
    // Accepted, no effect: a placement hint (OmpSs-2 spec, "affinity clause")
    // and the FPGA accelerator count of device(fpga) tasks, which run on the host.
    {"affinity", "affinity", ArgForm::Regions, kTaskLike, false, false},
    {"num_instances", "num_instances", ArgForm::Expr1, kTaskLike | kTarget, false, true},
    // device(cuda) task functions: ndrange(n, G1..Gn, L1..Ln) launches the
    // function as a kernel (OmpSs-2 user guide, "CUDA tasks").
    {"ndrange", "ndrange", ArgForm::Ndrange, kTask | kTarget, false, true},
};

const ClauseSpec* find_spec(const std::string& name) {
  for (const ClauseSpec& s : kClauses)
    if (name == s.name) return &s;
  return nullptr;
}

unsigned dir_mask(DirKind k) {
  switch (k) {
    case DirKind::Task:
      return kTask;
    case DirKind::Taskloop:
      return kLoop;
    case DirKind::Taskwait:
      return kWait;
    case DirKind::Release:
      return kRelease;
    case DirKind::Target:
      return kTarget;
    case DirKind::Critical:
      return kCritical;
    default:
      return 0;
  }
}

// Clauses that mean "this is an OmpSs-1 target", not an OpenMP offload target.
bool ompss_target_clause(const std::string& n) {
  static const std::set<std::string> k = {"device",     "copy_in",   "copy_out",
                                          "copy_inout", "copy_deps", "no_copy_deps",
                                          "implements", "ndrange",   "num_instances"};
  return k.count(n) != 0;
}

class Parser {
 public:
  Parser(const std::string& text, std::vector<Token> toks, Directive& d, ParseError& e)
      : text_(text), t_(std::move(toks)), d_(d), err_(e) {}

  bool run() {
    if (!prefix() || !directive_name()) return false;
    if (d_.kind == DirKind::Passthrough || d_.kind == DirKind::Atomic) {
      d_.argument = span(i_, t_.size() - 1);  // kept verbatim for the compiler
      return true;
    }
    if (!directive_argument()) return false;
    return clauses() && ndrange_on_cuda();
  }

 private:
  // ndrange launches a CUDA kernel: only with device(cuda) in the same pragma.
  bool ndrange_on_cuda() {
    const Clause* r = d_.find("ndrange");
    if (!r) return true;
    const Clause* d = d_.find("device");
    if (d && d->modifier == "cuda") return true;
    return fail(r->pos, "'ndrange' needs 'device(cuda)' (the task function is a CUDA kernel)");
  }

  const Token& peek(std::size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool fail(unsigned pos, std::string msg) {
    err_ = {pos, std::move(msg)};
    return false;
  }

  bool prefix() {
    const Token& p = peek();
    if (p.kind != Tok::Ident || (p.text != "oss" && p.text != "omp"))
      return fail(p.pos, "expected 'oss' or 'omp'");
    d_.prefix = p.text == "oss" ? Prefix::Oss : Prefix::Omp;
    ++i_;
    return true;
  }

  bool directive_name() {
    const Token& n = peek();
    if (n.kind != Tok::Ident)
      return fail(n.pos, std::string("expected a directive name after '#pragma ") +
                             (d_.prefix == Prefix::Oss ? "oss'" : "omp'"));
    d_.name = n.text;
    d_.name_pos = n.pos;
    ++i_;
    return d_.prefix == Prefix::Oss ? oss_name(n) : omp_name(n);
  }

  bool oss_name(const Token& n) {
    const std::string& s = n.text;
    if (s == "task" && peek().is("for"))
      return fail(n.pos, "'#pragma oss task for' is not supported (use 'taskloop')");
    if (task_loop_spelling(n)) return true;
    if (s == "taskloop" && peek().is("for")) {  // worksharing taskloop: a plain taskloop here
      ++i_;
      d_.name = "taskloop for";
    }
    if (s == "task")
      d_.kind = DirKind::Task;
    else if (s == "taskloop")
      d_.kind = DirKind::Taskloop;
    else if (s == "taskwait")
      d_.kind = DirKind::Taskwait;
    else if (s == "critical")
      d_.kind = DirKind::Critical;
    else if (s == "atomic")
      d_.kind = DirKind::Atomic;
    else if (s == "release")
      d_.kind = DirKind::Release;
    else if (s == "assert")
      d_.kind = DirKind::Assert;
    else if (s == "taskiter" || s == "declare")
      return fail(n.pos, "'#pragma oss " + s + "' is not supported by joulecc");
    else
      return fail(n.pos, "unknown OmpSs-2 directive '" + s + "'");
    return true;
  }

  bool omp_name(const Token& n) {
    const std::string& s = n.text;
    if (s == "taskloop" && peek().is("simd")) ++i_;  // the simd part is left to the compiler
    if (task_loop_spelling(n)) return true;
    if (s == "task")
      d_.kind = DirKind::Task;
    else if (s == "taskloop")
      d_.kind = DirKind::Taskloop;
    else if (s == "taskwait")
      d_.kind = DirKind::Taskwait;
    else if (s == "critical")
      d_.kind = DirKind::Critical;
    else if (s == "atomic")
      d_.kind = DirKind::Atomic;
    else if (s == "taskgroup")
      d_.kind = DirKind::Taskgroup;
    else if (s == "taskyield")
      d_.kind = DirKind::Taskyield;
    else if (s == "flush")
      d_.kind = DirKind::Flush;
    else if (s == "target" && is_ompss_target())
      d_.kind = DirKind::Target;
    else
      d_.kind = DirKind::Passthrough;
    return true;
  }

  // `task loop`, the spelling Mercurium accepted for taskloop.
  bool task_loop_spelling(const Token& n) {
    if (n.text != "task" || !peek().is("loop")) return false;
    ++i_;
    d_.name = "taskloop";
    d_.kind = DirKind::Taskloop;
    return true;
  }

  // `omp target` is OmpSs when every clause is an OmpSs target clause.
  bool is_ompss_target() const {
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
  bool directive_argument() {
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
  bool unknown_clause(const Token& n) {
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
  bool match_paren(std::size_t& close) {
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

  Expr span(std::size_t first, std::size_t last) const {
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
  std::vector<std::pair<std::size_t, std::size_t>> split(std::size_t first,
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

  bool clauses() {
    std::set<std::string> seen;
    while (peek().kind != Tok::End) {
      if (peek().is(",") && !d_.clauses.empty()) ++i_;
      const Token& n = peek();
      if (n.kind != Tok::Ident)
        return fail(n.pos, "expected a clause name, found '" + n.text + "'");
      if (!clause(n, seen)) return false;
    }
    return true;
  }

  bool clause(const Token& n, std::set<std::string>& seen) {
    const ClauseSpec* s = find_spec(n.text);
    if (n.text == "detach" || n.text == "node" || n.text == "onready")
      return fail(n.pos, "clause '" + n.text + "' is not supported by joulecc");
    if (!s) return unknown_clause(n);
    if (!(s->dirs & dir_mask(d_.kind)))
      return fail(n.pos,
                  "clause '" + n.text + "' is not allowed on '#pragma " + d_.spelled() + "'");
    if (s->once && !seen.insert(s->name).second)
      return fail(n.pos, "clause '" + n.text + "' appears more than once");
    Clause c;
    c.name = n.text;
    c.canonical = s->canonical;
    c.form = s->form;
    c.weak = s->weak;
    c.pos = n.pos;
    ++i_;
    if (s->form == ArgForm::None) {
      // Mercurium's `taskwait noflush(list)`: the list changes nothing, the
      // taskwait still waits for every child.
      if (c.canonical == "noflush" && peek().is("(")) {
        std::size_t close = 0;
        if (!match_paren(close)) return false;
        i_ = close + 1;
      }
      if (peek().is("(")) return fail(peek().pos, "clause '" + n.text + "' takes no arguments");
      d_.clauses.push_back(std::move(c));
      return true;
    }
    if (!peek().is("(")) return fail(peek().pos, "expected '(' after '" + n.text + "'");
    std::size_t open = i_, close = 0;
    if (!match_paren(close)) return false;
    if (!arguments(c, open + 1, close)) return false;
    i_ = close + 1;
    d_.clauses.push_back(std::move(c));
    if (seen.count("grainsize") && seen.count("num_tasks"))
      return fail(n.pos, "'grainsize' and 'num_tasks' cannot be used together");
    return true;
  }

  bool arguments(Clause& c, std::size_t first, std::size_t last) {
    switch (c.form) {
      case ArgForm::Expr1:
        return expr1(c, first, last);
      case ArgForm::Regions:
        return regions(c, first, last);
      case ArgForm::Names:
        return names(c, first, last);
      case ArgForm::Reduction:
        return reduction(c, first, last);
      case ArgForm::Depend:
        return depend(c, first, last);
      case ArgForm::Device:
        return device(c, first, last);
      case ArgForm::Default:
        return default_kind(c, first, last);
      case ArgForm::Ndrange:
        return ndrange(c, first, last);
      case ArgForm::None:
        break;
    }
    return true;
  }

  bool expr1(Clause& c, std::size_t first, std::size_t last) {
    auto parts = split(first, last);
    if (parts.size() != 1)
      return fail(t_[parts[1].first - 1].pos, "'" + c.name + "' takes one expression");
    if (first == last) return fail(t_[first].pos, "expected an expression in '" + c.name + "'");
    c.args.push_back(span(first, last));
    return true;
  }

  bool regions(Clause& c, std::size_t first, std::size_t last) {
    for (auto [b, e] : split(first, last)) {
      if (b == e) return fail(t_[b].pos, "expected a data reference in '" + c.name + "'");
      if (t_[b].is("{") && c.canonical == "reduction")
        return fail(t_[b].pos, "multidependencies ('{...}') are not supported in reductions");
      c.args.push_back(span(b, e));
    }
    return true;
  }

  bool names(Clause& c, std::size_t first, std::size_t last) {
    for (auto [b, e] : split(first, last)) {
      if (e != b + 1 || t_[b].kind != Tok::Ident)
        return fail(t_[b].pos, "expected a variable name in '" + c.name + "'");
      c.args.push_back(span(b, e));
    }
    return true;
  }

  // Finds the top-level ':' (not '::') in [first, last).
  std::size_t colon(std::size_t first, std::size_t last) const {
    int depth = 0;
    for (std::size_t k = first; k < last; ++k) {
      const Token& t = t_[k];
      if (t.is("(") || t.is("["))
        ++depth;
      else if (t.is(")") || t.is("]"))
        --depth;
      else if (depth == 0 && t.is(":"))
        return k;
    }
    return last;
  }

  bool reduction(Clause& c, std::size_t first, std::size_t last) {
    std::size_t k = colon(first, last);
    if (k == last) return fail(t_[first].pos, "expected 'operator:' in '" + c.name + "'");
    static const std::set<std::string> ops = {"+", "-",  "*",  "&",   "|",
                                              "^", "&&", "||", "max", "min"};
    std::string op = token_span(text_, t_, first, k);
    if (k != first + 1 || !ops.count(op))
      return fail(t_[first].pos, "unsupported reduction operator '" + op +
                                     "' (joulecc knows + - * & | ^ && || max min)");
    c.modifier = op;
    c.modifier_pos = t_[first].pos;
    return regions(c, k + 1, last);
  }

  bool depend(Clause& c, std::size_t first, std::size_t last) {
    std::size_t k = colon(first, last);
    if (k == last) return fail(t_[first].pos, "expected 'type:' in 'depend'");
    std::string type = token_span(text_, t_, first, k);
    static const char* const map[][2] = {{"in", "in"},
                                         {"out", "out"},
                                         {"inout", "inout"},
                                         {"inoutset", "concurrent"},
                                         {"mutexinoutset", "commutative"}};
    c.modifier_pos = t_[first].pos;
    for (auto& m : map)
      if (type == m[0]) c.modifier = m[1];
    if (c.modifier.empty())
      return fail(t_[first].pos, "unsupported dependence type '" + type + "' in 'depend'");
    return regions(c, k + 1, last);
  }

  bool device(Clause& c, std::size_t first, std::size_t last) {
    for (auto [b, e] : split(first, last)) {
      if (e != b + 1 || t_[b].kind != Tok::Ident)
        return fail(t_[b].pos, "expected a device name in 'device'");
      const std::string& n = t_[b].text;
      if (n != "smp" && n != "mic" && n != "fpga" && n != "cuda")
        return fail(t_[b].pos,
                    "device '" + n + "' is not supported by joulecc (smp, mic, fpga, cuda)");
      c.modifier += c.modifier.empty() ? n : "," + n;
      c.args.push_back(span(b, e));
    }
    // A CUDA task function launches kernels: it has no host or card form.
    if (c.modifier.find("cuda") != std::string::npos && c.modifier != "cuda")
      return fail(t_[first].pos, "device(cuda) cannot be combined with other devices");
    return true;
  }

  // ndrange(n, G1..Gn, L1..Ln): n a literal 1, 2 or 3 (the kernel's
  // dimensions), then n global sizes and n block sizes.
  bool ndrange(Clause& c, std::size_t first, std::size_t last) {
    auto parts = split(first, last);
    const std::string n = token_span(text_, t_, parts[0].first, parts[0].second);
    if (n != "1" && n != "2" && n != "3")
      return fail(t_[first].pos,
                  "the first value of 'ndrange' is the number of dimensions: 1, 2 "
                  "or 3 (an integer literal), not '" +
                      n + "'");
    const std::size_t want = 1 + 2 * std::size_t(n[0] - '0');
    if (parts.size() != want)
      return fail(t_[first].pos, "'ndrange(" + n + ", ...)' takes " + std::to_string(want) +
                                     " values (" + n +
                                     ", then the global sizes, then the block "
                                     "sizes), not " +
                                     std::to_string(parts.size()));
    for (auto [b, e] : parts) {
      if (b == e) return fail(t_[b].pos, "expected an expression in 'ndrange'");
      c.args.push_back(span(b, e));
    }
    c.modifier = n;
    return true;
  }

  bool default_kind(Clause& c, std::size_t first, std::size_t last) {
    const std::string k = token_span(text_, t_, first, last);
    if (k != "shared" && k != "none" && k != "firstprivate" && k != "private")
      return fail(t_[first].pos,
                  "expected 'shared', 'none', 'firstprivate' or 'private' in 'default'");
    c.modifier = k;
    c.modifier_pos = t_[first].pos;
    return true;
  }

  const std::string& text_;
  std::vector<Token> t_;
  Directive& d_;
  ParseError& err_;
  std::size_t i_ = 0;
};

}  // namespace

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
