// `#pragma omp atomic`: recognises the OpenMP forms of the statement
// (update, read, write, capture, and the two-statement capture block) and
// records the ranges codegen needs to emit __atomic builtins.
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>

#include "clang_internal.hpp"

using namespace clang;
using CExpr = clang::Expr;  // joulecc::Expr is a clause expression

namespace joulecc {
namespace {

const CExpr* bare(const CExpr* e) { return e ? e->IgnoreParenImpCasts() : nullptr; }

// Operator spelling of a compound assignment or a binary operator.
std::string op_of(BinaryOperatorKind k) {
  switch (k) {
    case BO_Add:
    case BO_AddAssign:
      return "+";
    case BO_Sub:
    case BO_SubAssign:
      return "-";
    case BO_Mul:
    case BO_MulAssign:
      return "*";
    case BO_Div:
    case BO_DivAssign:
      return "/";
    case BO_And:
    case BO_AndAssign:
      return "&";
    case BO_Or:
    case BO_OrAssign:
      return "|";
    case BO_Xor:
    case BO_XorAssign:
      return "^";
    case BO_Shl:
    case BO_ShlAssign:
      return "<<";
    case BO_Shr:
    case BO_ShrAssign:
      return ">>";
    default:
      return "";
  }
}

class AtomicReader {
 public:
  AtomicReader(Context& cx, AtomicPlan& p) : cx_(cx), p_(p) {}

  bool range(const CExpr* e, unsigned& b, unsigned& en) { return cx_.stmt_range(e, b, en); }
  std::string text(const CExpr* e) {
    unsigned b, en;
    return range(e, b, en) ? cx_.text(b, en) : std::string();
  }
  bool set_x(const CExpr* x) {
    x_ = bare(x);
    return x_ && x_->isLValue() && range(x, p_.x_b, p_.x_e);
  }
  bool same_x(const CExpr* e) { return !text(e).empty() && text(e) == cx_.text(p_.x_b, p_.x_e); }

  // x++, ++x, x--, --x, x op= e, x = x op e, x = e op x.
  bool update(const CExpr* e) {
    e = bare(e);
    if (const auto* u = dyn_cast_or_null<UnaryOperator>(e)) {
      if (!u->isIncrementDecrementOp()) return false;
      p_.op = u->isIncrementOp() ? "+" : "-";
      p_.capture_old = u->isPostfix();
      return set_x(u->getSubExpr());
    }
    if (const auto* c = dyn_cast_or_null<CompoundAssignOperator>(e)) {
      p_.op = op_of(c->getOpcode());
      return !p_.op.empty() && set_x(c->getLHS()) && range(c->getRHS(), p_.e_b, p_.e_e);
    }
    const auto* a = dyn_cast_or_null<BinaryOperator>(e);
    if (!a || a->getOpcode() != BO_Assign || !set_x(a->getLHS())) return false;
    const auto* r = dyn_cast<BinaryOperator>(bare(a->getRHS()));
    if (!r || op_of(r->getOpcode()).empty() || r->isCompoundAssignmentOp()) return false;
    p_.op = op_of(r->getOpcode());
    if (same_x(r->getLHS())) return range(r->getRHS(), p_.e_b, p_.e_e);
    p_.expr_left = true;
    return same_x(r->getRHS()) && range(r->getLHS(), p_.e_b, p_.e_e);
  }

  // v = x (read) or x = e (write).
  bool assign(const CExpr* e, bool read) {
    const auto* a = dyn_cast_or_null<BinaryOperator>(bare(e));
    if (!a || a->getOpcode() != BO_Assign) return false;
    if (read) return range(a->getLHS(), p_.v_b, p_.v_e) && set_x(a->getRHS());
    return set_x(a->getLHS()) && range(a->getRHS(), p_.e_b, p_.e_e);
  }

  // v = x op= e, v = x++, v = ++x, ...; or { v = x; update; } / { update; v = x; }.
  bool capture(const Stmt* s) {
    if (const auto* cs = dyn_cast<CompoundStmt>(s)) return capture_block(cs);
    const auto* a = dyn_cast_or_null<BinaryOperator>(bare(dyn_cast<CExpr>(s)));
    if (!a || a->getOpcode() != BO_Assign || !range(a->getLHS(), p_.v_b, p_.v_e)) return false;
    const auto* u = dyn_cast<UnaryOperator>(bare(a->getRHS()));
    if (!u && !isa<CompoundAssignOperator>(bare(a->getRHS()))) return false;
    return update(a->getRHS());
  }

  bool capture_block(const CompoundStmt* cs) {
    if (cs->size() != 2) return false;
    const CExpr* first = dyn_cast<CExpr>(cs->body_front());
    const CExpr* second = dyn_cast<CExpr>(cs->body_back());
    if (!first || !second) return false;
    const auto* a1 = dyn_cast<BinaryOperator>(bare(first));
    bool read_first =
        a1 && a1->getOpcode() == BO_Assign && !isa<BinaryOperator>(bare(a1->getRHS()));
    const CExpr* read = read_first ? first : second;
    if (!update(read_first ? second : first)) return false;
    const auto* r = dyn_cast<BinaryOperator>(bare(read));
    if (!r || r->getOpcode() != BO_Assign || !same_x(r->getRHS())) return false;
    p_.capture_old = read_first;
    return range(r->getLHS(), p_.v_b, p_.v_e);
  }

  // Lock-free builtins need a scalar of 1, 2, 4 or 8 bytes; fetch_<op> an integer
  // operand on an integer (not bool or enum) location.
  void classify(const CExpr* operand) {
    QualType t = x_->getType();
    uint64_t size = cx_.ast.getTypeSizeInChars(t).getQuantity();
    bool scalar = t->isScalarType() && !t->isAnyComplexType();
    p_.locked = !scalar || (size != 1 && size != 2 && size != 4 && size != 8) ||
                (t->isRealFloatingType() && size != 4 && size != 8);
    bool int_x = t->isIntegerType() && !t->isBooleanType() && !t->isEnumeralType();
    bool int_e = !operand || bare(operand)->getType()->isIntegerType();
    bool op_ok = p_.op == "+" || p_.op == "-" || p_.op == "&" || p_.op == "|" || p_.op == "^";
    p_.fetch = !p_.locked && int_x && int_e && op_ok && !p_.expr_left;
  }

 private:
  Context& cx_;
  AtomicPlan& p_;
  const CExpr* x_ = nullptr;
};

AtomicPlan::Form form_of(const std::string& clauses) {
  auto has = [&](const char* w) { return clauses.find(w) != std::string::npos; };
  if (has("capture")) return AtomicPlan::Capture;
  if (has("read")) return AtomicPlan::Read;
  if (has("write")) return AtomicPlan::Write;
  return AtomicPlan::Update;
}

const CExpr* operand_at(Context& cx, const Stmt* s, unsigned b, unsigned e) {
  if (b == e) return nullptr;
  const CExpr* found = nullptr;
  std::vector<const Stmt*> stack = {s};
  while (!stack.empty() && !found) {
    const Stmt* t = stack.back();
    stack.pop_back();
    unsigned tb, te;
    if (const auto* x = dyn_cast_or_null<CExpr>(t);
        x && cx.stmt_range(x, tb, te) && tb == b && te == e)
      found = x;
    if (t)
      for (const Stmt* c : t->children()) stack.push_back(c);
  }
  return found;
}

}  // namespace

bool analyze_atomic(Context& cx, Construct& c, const Stmt* s) {
  AtomicPlan& p = c.atomic;
  p.form = form_of(c.dir.argument.text);
  AtomicReader r(cx, p);
  const CExpr* e = dyn_cast_or_null<CExpr>(s);
  bool ok = false;
  switch (p.form) {
    case AtomicPlan::Update:
      ok = r.update(e);
      break;
    case AtomicPlan::Read:
    case AtomicPlan::Write:
      ok = r.assign(e, p.form == AtomicPlan::Read);
      break;
    case AtomicPlan::Capture:
      ok = r.capture(s);
      break;
  }
  if (!ok) {
    std::string clauses = c.dir.argument.empty() ? "" : " " + c.dir.argument.text;
    cx.error_at(c, c.dir.name_pos,
                "joulecc does not recognise this '#pragma " + c.dir.spelled() + clauses +
                    "' statement (expected x++, x op= expr, x = x op expr, v = x, x = expr, "
                    "v = x op= expr or { v = x; x op= expr; })");
    return false;
  }
  r.classify(operand_at(cx, s, p.e_b, p.e_e));
  return true;
}

}  // namespace joulecc
