// Taskloop nests (clang_internal.hpp, analyze_loop): the canonical loops of
// the collapse levels and the body the chunks run.
#include <clang/AST/DeclCXX.h>
#include <clang/AST/StmtCXX.h>

#include "clang_internal.hpp"

using namespace clang;

namespace joulecc {

namespace {

const VarDecl* var_of(const clang::Expr* e) {
  if (!e) return nullptr;
  if (const auto* d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(d->getDecl());
  return nullptr;
}

bool refers_to(const Stmt* s, const std::set<const VarDecl*>& vars) {
  if (!s) return false;
  if (const auto* d = dyn_cast<DeclRefExpr>(s))
    if (const auto* v = dyn_cast<VarDecl>(d->getDecl()); v && vars.count(v)) return true;
  for (const Stmt* c : s->children())
    if (refers_to(c, vars)) return true;
  return false;
}

bool level(Context& cx, const ForStmt* f, LoopLevel& lv, const VarDecl*& var) {
  auto bad = [&](SourceLocation at, const std::string& what) {
    cx.error(at,
             "taskloop needs a loop 'for (i = lo; i < hi; i += step)' over an integer: " + what);
    return false;
  };
  var = nullptr;
  const Stmt* init = f->getInit();
  const clang::Expr* lo = nullptr;
  if (const auto* ds = dyn_cast_or_null<DeclStmt>(init); ds && ds->isSingleDecl()) {
    var = dyn_cast<VarDecl>(ds->getSingleDecl());
    lo = var ? var->getInit() : nullptr;
    lv.declared_in_init = true;
  } else if (const auto* bo = dyn_cast_or_null<BinaryOperator>(init);
             bo && bo->getOpcode() == BO_Assign) {
    var = var_of(bo->getLHS());
    lo = bo->getRHS();
    lv.declared_in_init = false;
  }
  if (!var || !lo) return bad(f->getBeginLoc(), "cannot find the loop variable and its start");
  if (!var->getType()->isIntegerType())
    return bad(var->getLocation(), "the loop variable is not an integer");
  lv.var = var->getNameAsString();
  lv.var_decl = print_type(cx, var->getType().getCanonicalType().getUnqualifiedType(), "@");
  lv.lo = cx.text(lo->getSourceRange());
  cx.main_offset(lo->getBeginLoc(), lv.lo_off);
  const auto* cond = dyn_cast_or_null<BinaryOperator>(
      f->getCond() ? f->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond) return bad(f->getBeginLoc(), "the condition must compare the variable");
  int ops[] = {BO_LT, BO_LE, BO_GT, BO_GE, BO_NE};
  int op = -1;
  for (int i = 0; i < 5; ++i)
    if (cond->getOpcode() == ops[i]) op = i;
  const clang::Expr* hi = nullptr;
  if (op >= 0 && var_of(cond->getLHS()) == var)
    hi = cond->getRHS();
  else if (op >= 0 && var_of(cond->getRHS()) == var) {
    hi = cond->getLHS();
    static const int flip[] = {2, 3, 0, 1, 4};
    op = flip[op];
  }
  if (!hi)
    return bad(cond->getBeginLoc(),
               "the condition must compare the variable with <, <=, >, >= or !=");
  lv.op = op;
  lv.hi = cx.text(hi->getSourceRange());
  cx.main_offset(hi->getBeginLoc(), lv.hi_off);
  const clang::Expr* inc = f->getInc() ? f->getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto* u = dyn_cast_or_null<UnaryOperator>(inc);
      u && var_of(u->getSubExpr()) == var && (u->isIncrementOp() || u->isDecrementOp())) {
    lv.step = u->isIncrementOp() ? "1" : "-1";
    cx.main_offset(u->getBeginLoc(), lv.step_off);
  } else if (const auto* ca = dyn_cast_or_null<CompoundAssignOperator>(inc);
             ca && var_of(ca->getLHS()) == var &&
             (ca->getOpcode() == BO_AddAssign || ca->getOpcode() == BO_SubAssign)) {
    std::string s = cx.text(ca->getRHS()->getSourceRange());
    lv.step = ca->getOpcode() == BO_AddAssign ? "(" + s + ")" : "-(" + s + ")";
    cx.main_offset(ca->getRHS()->getBeginLoc(), lv.step_off);
  } else if (const auto* as = dyn_cast_or_null<BinaryOperator>(inc);
             as && as->getOpcode() == BO_Assign && var_of(as->getLHS()) == var) {
    const auto* rhs = dyn_cast<BinaryOperator>(as->getRHS()->IgnoreParenImpCasts());
    if (!rhs || (rhs->getOpcode() != BO_Add && rhs->getOpcode() != BO_Sub))
      return bad(inc->getBeginLoc(), "the increment must be i++, i--, i += s, i -= s or i = i + s");
    const clang::Expr* other = var_of(rhs->getLHS()) == var ? rhs->getRHS()
                               : (rhs->getOpcode() == BO_Add && var_of(rhs->getRHS()) == var)
                                   ? rhs->getLHS()
                                   : nullptr;
    if (!other) return bad(inc->getBeginLoc(), "the increment must be i = i + s or i = i - s");
    std::string s = cx.text(other->getSourceRange());
    lv.step = rhs->getOpcode() == BO_Add ? "(" + s + ")" : "-(" + s + ")";
    cx.main_offset(other->getBeginLoc(), lv.step_off);
  } else {
    return bad(f->getBeginLoc(), "the increment must be i++, i--, i += s or i -= s");
  }
  if (!lv.step_off) lv.step_off = lv.hi_off;
  return true;
}

}  // namespace

bool analyze_loop(Context& cx, Construct& c, const ForStmt* loop,
                  std::set<const VarDecl*>& loop_vars, const Stmt*& body) {
  int depth = 1;
  if (const Clause* cl = c.dir.find("collapse")) {
    const std::string& t = cl->args[0].text;
    char* end = nullptr;
    long v = std::strtol(t.c_str(), &end, 10);
    if (!end || *end != '\0' || v < 1 || v > 8) {
      cx.error_at(c, cl->args[0].pos, "collapse needs an integer constant between 1 and 8");
      return false;
    }
    depth = static_cast<int>(v);
  }
  const ForStmt* f = loop;
  for (int d = 0; d < depth; ++d) {
    LoopLevel lv;
    const VarDecl* var = nullptr;
    if (!level(cx, f, lv, var)) return false;
    if (d > 0 && (refers_to(f->getInit(), loop_vars) || refers_to(f->getCond(), loop_vars) ||
                  refers_to(f->getInc(), loop_vars))) {
      cx.error(f->getBeginLoc(),
               "collapsed loops must be rectangular: the bounds of an inner loop "
               "cannot use an outer loop variable");
      return false;
    }
    loop_vars.insert(var);
    c.loop.push_back(std::move(lv));
    body = f->getBody();
    if (d + 1 == depth) break;
    const Stmt* next = body;
    if (const auto* cs = dyn_cast<CompoundStmt>(next); cs && cs->size() == 1)
      next = cs->body_front();
    f = dyn_cast<ForStmt>(next);
    if (!f) {
      cx.error(body->getBeginLoc(), "collapse(" + std::to_string(depth) + ") needs " +
                                        std::to_string(depth) + " perfectly nested loops");
      return false;
    }
  }
  return true;
}

}  // namespace joulecc
