// The clauses of a directive and their arguments (directive_parser.hpp).
#include <set>

#include "directive_parser.hpp"

namespace joulecc {

bool Parser::clauses() {
  std::set<std::string> seen;
  while (peek().kind != Tok::End) {
    if (peek().is(",") && !d_.clauses.empty()) ++i_;
    const Token& n = peek();
    if (n.kind != Tok::Ident) return fail(n.pos, "expected a clause name, found '" + n.text + "'");
    if (!clause(n, seen)) return false;
  }
  return true;
}

bool Parser::clause(const Token& n, std::set<std::string>& seen) {
  const ClauseSpec* s = find_spec(n.text);
  if (n.text == "detach" || n.text == "node" || n.text == "onready")
    return fail(n.pos, "clause '" + n.text + "' is not supported by joulecc");
  if (!s) return unknown_clause(n);
  if (!(s->dirs & dir_mask(d_.kind)))
    return fail(n.pos, "clause '" + n.text + "' is not allowed on '#pragma " + d_.spelled() + "'");
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

bool Parser::arguments(Clause& c, std::size_t first, std::size_t last) {
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

bool Parser::expr1(Clause& c, std::size_t first, std::size_t last) {
  auto parts = split(first, last);
  if (parts.size() != 1)
    return fail(t_[parts[1].first - 1].pos, "'" + c.name + "' takes one expression");
  if (first == last) return fail(t_[first].pos, "expected an expression in '" + c.name + "'");
  c.args.push_back(span(first, last));
  return true;
}

bool Parser::regions(Clause& c, std::size_t first, std::size_t last) {
  for (auto [b, e] : split(first, last)) {
    if (b == e) return fail(t_[b].pos, "expected a data reference in '" + c.name + "'");
    if (t_[b].is("{") && c.canonical == "reduction")
      return fail(t_[b].pos, "multidependencies ('{...}') are not supported in reductions");
    c.args.push_back(span(b, e));
  }
  return true;
}

bool Parser::names(Clause& c, std::size_t first, std::size_t last) {
  for (auto [b, e] : split(first, last)) {
    if (e != b + 1 || t_[b].kind != Tok::Ident)
      return fail(t_[b].pos, "expected a variable name in '" + c.name + "'");
    c.args.push_back(span(b, e));
  }
  return true;
}

// Finds the top-level ':' (not '::') in [first, last).
std::size_t Parser::colon(std::size_t first, std::size_t last) const {
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

bool Parser::reduction(Clause& c, std::size_t first, std::size_t last) {
  std::size_t k = colon(first, last);
  if (k == last) return fail(t_[first].pos, "expected 'operator:' in '" + c.name + "'");
  static const std::set<std::string> ops = {"+", "-", "*", "&", "|", "^", "&&", "||", "max", "min"};
  std::string op = token_span(text_, t_, first, k);
  if (k != first + 1 || !ops.count(op))
    return fail(t_[first].pos, "unsupported reduction operator '" + op +
                                   "' (joulecc knows + - * & | ^ && || max min)");
  c.modifier = op;
  c.modifier_pos = t_[first].pos;
  return regions(c, k + 1, last);
}

bool Parser::depend(Clause& c, std::size_t first, std::size_t last) {
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

bool Parser::device(Clause& c, std::size_t first, std::size_t last) {
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
bool Parser::ndrange(Clause& c, std::size_t first, std::size_t last) {
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

bool Parser::default_kind(Clause& c, std::size_t first, std::size_t last) {
  const std::string k = token_span(text_, t_, first, last);
  if (k != "shared" && k != "none" && k != "firstprivate" && k != "private")
    return fail(t_[first].pos,
                "expected 'shared', 'none', 'firstprivate' or 'private' in 'default'");
  c.modifier = k;
  c.modifier_pos = t_[first].pos;
  return true;
}

}  // namespace joulecc
