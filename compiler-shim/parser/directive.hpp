// What a parsed OmpSs pragma is: the directive, its clauses and their
// arguments as expression text with positions (indices into PragmaText.text).
#pragma once

#include <string>
#include <vector>

namespace joulecc {

enum class Prefix { Omp, Oss };

enum class DirKind {
  Task,  // task on a statement or a function declaration
  Taskloop,
  Taskwait,
  Critical,
  Atomic,  // kept for the compiler (with OpenMP) or run under a lock
  Release,
  Target,     // OmpSs-1 `omp target device(..) copy_..`: applies to the next task
  Taskgroup,  // OpenMP taskgroup: the statement, then a taskwait
  Taskyield,
  Flush,
  Assert,       // OmpSs-2 assert("..."): accepted and dropped
  Passthrough,  // plain OpenMP (parallel, for, barrier, ...): left to the compiler
};

// Clause argument forms.
enum class ArgForm { None, Expr1, Regions, Names, Reduction, Depend, Device, Default, Ndrange };

struct Expr {
  std::string text;
  unsigned pos = 0;  // first character in the pragma text
  unsigned end = 0;  // one past the last character
  bool empty() const { return text.empty(); }
};

struct Clause {
  std::string name;       // as written ("input", "weakin", ...)
  std::string canonical;  // dependence kind or option: "in", "out", "inout", "commutative", ...
  ArgForm form = ArgForm::None;
  bool weak = false;  // weakin/weakout/... (treated as the strong kind)
  unsigned pos = 0;
  std::string modifier;  // reduction operator, depend type, default kind, device names
  unsigned modifier_pos = 0;
  std::vector<Expr> args;
};

struct Directive {
  Prefix prefix = Prefix::Oss;
  DirKind kind = DirKind::Passthrough;
  std::string name;  // "task", "taskloop", "taskwait", ...
  unsigned name_pos = 0;
  std::vector<Clause> clauses;
  std::vector<Clause> ignored;  // unknown clauses, skipped: the caller warns about each
  Expr argument;                // critical(name), flush(list), assert("...")

  const Clause* find(const std::string& canonical) const {
    for (const Clause& c : clauses)
      if (c.canonical == canonical) return &c;
    return nullptr;
  }
  std::string spelled() const { return (prefix == Prefix::Oss ? "oss " : "omp ") + name; }
};

struct ParseError {
  unsigned pos = 0;
  std::string message;
};

// Parses the text after `#pragma` (starting with "oss" or "omp"). Returns
// false with err set on malformed input; never throws.
bool parse_directive(const std::string& text, Directive& out, ParseError& err);

// True when this clause is a data dependence (in/out/inout/.../reduction/on).
bool is_dependence_clause(const Clause& c);

}  // namespace joulecc
