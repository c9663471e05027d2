// Indexer (clang_indexer.hpp): one walk over the AST before the pragmas are read.
#include "clang_indexer.hpp"

#include <set>

using namespace clang;

namespace joulecc {

bool Indexer::VisitDecl(Decl* d) {
  if (isa<TranslationUnitDecl>(d)) return true;
  SourceLocation b = cx_.sm.getExpansionLoc(d->getBeginLoc());
  if (b.isValid()) decls.emplace(cx_.sm.getDecomposedLoc(b), d);
  return true;
}

bool Indexer::VisitFunctionDecl(FunctionDecl* fd) {
  if (!fd->doesThisDeclarationHaveABody() || fd->isTemplateInstantiation()) return true;
  unsigned b, e;
  if (!cx_.stmt_range(fd->getBody(), b, e)) return true;
  bodies.push_back({b, e, fd});
  walk(fd->getBody(), fd, false);
  return true;
}

const FunctionDecl* Indexer::function_at(unsigned off) const {
  const FunctionDecl* best = nullptr;
  unsigned width = ~0u;
  for (auto [b, e, fd] : bodies)
    if (off >= b && off < e && e - b < width) {
      best = fd;
      width = e - b;
    }
  return best;
}

void Indexer::walk(const Stmt* s, const FunctionDecl* fn, bool stmt_pos) {
  if (!s) return;
  if (stmt_pos) {
    unsigned b;
    if (cx_.main_offset(s->getBeginLoc(), b)) stmts.emplace(b, std::make_pair(s, fn));
  }
  if (const auto* l = dyn_cast<LambdaExpr>(s)) {
    unsigned b, e;
    if (cx_.stmt_range(l->getBody(), b, e)) bodies.push_back({b, e, l->getCallOperator()});
    walk(l->getBody(), l->getCallOperator(), false);
    return;
  }
  if (isa<CompoundStmt>(s)) {
    for (const Stmt* c : s->children()) walk(c, fn, true);
    return;
  }
  std::set<const Stmt*> bodies_of;
  if (const auto* i = dyn_cast<IfStmt>(s))
    bodies_of = {i->getThen(), i->getElse()};
  else if (const auto* f = dyn_cast<ForStmt>(s))
    bodies_of = {f->getBody()};
  else if (const auto* w = dyn_cast<WhileStmt>(s))
    bodies_of = {w->getBody()};
  else if (const auto* d = dyn_cast<DoStmt>(s))
    bodies_of = {d->getBody()};
  else if (const auto* r = dyn_cast<CXXForRangeStmt>(s))
    bodies_of = {r->getBody()};
  else if (const auto* sw = dyn_cast<SwitchStmt>(s))
    bodies_of = {sw->getBody()};
  else if (const auto* sc = dyn_cast<SwitchCase>(s))
    bodies_of = {sc->getSubStmt()};
  else if (const auto* ls = dyn_cast<LabelStmt>(s))
    bodies_of = {ls->getSubStmt()};
  else if (const auto* as = dyn_cast<AttributedStmt>(s))
    bodies_of = {as->getSubStmt()};
  for (const Stmt* c : s->children()) walk(c, fn, c && bodies_of.count(c));
}

}  // namespace joulecc
