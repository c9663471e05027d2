// The directive parser's parts (pragma_parser.cpp: the directive and its
// name; pragma_clauses.cpp: the clauses and their arguments; clause_table.cpp:
// which clauses each directive takes). Internal to the parser library.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "directive.hpp"
#include "pragma_lexer.hpp"

namespace joulecc {

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

// The clause called `name` (as written), or nullptr.
const ClauseSpec* find_spec(const std::string& name);
// The ClauseSpec::dirs bit of a directive kind (0: takes no clauses).
unsigned dir_mask(DirKind k);
// Clauses that mean "this is an OmpSs-1 target", not an OpenMP offload target.
bool ompss_target_clause(const std::string& n);

class Parser {
 public:
  Parser(const std::string& text, std::vector<Token> toks, Directive& d, ParseError& e)
      : text_(text), t_(std::move(toks)), d_(d), err_(e) {}

  bool run();

 private:
  const Token& peek(std::size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }

  // pragma_parser.cpp
  bool ndrange_on_cuda();
  bool fail(unsigned pos, std::string msg);
  bool prefix();
  bool directive_name();
  bool oss_name(const Token& n);
  bool omp_name(const Token& n);
  bool task_loop_spelling(const Token& n);
  bool is_ompss_target() const;
  bool directive_argument();
  bool unknown_clause(const Token& n);
  bool match_paren(std::size_t& close);
  Expr span(std::size_t first, std::size_t last) const;
  std::vector<std::pair<std::size_t, std::size_t>> split(std::size_t first, std::size_t last) const;

  // pragma_clauses.cpp
  bool clauses();
  bool clause(const Token& n, std::set<std::string>& seen);
  bool arguments(Clause& c, std::size_t first, std::size_t last);
  bool expr1(Clause& c, std::size_t first, std::size_t last);
  bool regions(Clause& c, std::size_t first, std::size_t last);
  bool names(Clause& c, std::size_t first, std::size_t last);
  std::size_t colon(std::size_t first, std::size_t last) const;
  bool reduction(Clause& c, std::size_t first, std::size_t last);
  bool depend(Clause& c, std::size_t first, std::size_t last);
  bool device(Clause& c, std::size_t first, std::size_t last);
  bool ndrange(Clause& c, std::size_t first, std::size_t last);
  bool default_kind(Clause& c, std::size_t first, std::size_t last);

  const std::string& text_;
  std::vector<Token> t_;
  Directive& d_;
  ParseError& err_;
  std::size_t i_ = 0;
};

}  // namespace joulecc
