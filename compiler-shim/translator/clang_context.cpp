// Context (clang_internal.hpp): locations and text of the file being
// rewritten, diagnostics, and name lookup for clause expressions.
#include <clang/AST/StmtCXX.h>
#include <clang/Lex/Lexer.h>

#include "clang_internal.hpp"

using namespace clang;

namespace joulecc {

SourceLocation Context::loc(int src, unsigned offset) const {
  for (const auto& [fid, idx] : src_index)
    if (idx == src) return sm.getLocForStartOfFile(fid).getLocWithOffset(static_cast<int>(offset));
  return main_loc(offset);
}

void Context::error(SourceLocation at, const std::string& msg) {
  errors = true;
  diags.Report(at, diags.getCustomDiagID(DiagnosticsEngine::Error, "%0")) << msg;
}

void Context::warning(SourceLocation at, const std::string& msg) {
  diags.Report(at, diags.getCustomDiagID(DiagnosticsEngine::Warning, "%0")) << msg;
}

bool Context::main_offset(SourceLocation l, unsigned& off) const {
  if (l.isInvalid()) return false;
  SourceLocation e = sm.getExpansionLoc(l);
  auto [fid, o] = sm.getDecomposedLoc(e);
  if (fid != main_fid) return false;
  off = o;
  return true;
}

bool Context::stmt_range(const Stmt* s, unsigned& b, unsigned& e) const {
  CharSourceRange r = sm.getExpansionRange(s->getSourceRange());
  unsigned lb, le;
  if (!main_offset(r.getBegin(), lb) || !main_offset(r.getEnd(), le)) return false;
  SourceLocation end = Lexer::getLocForEndOfToken(r.getEnd(), 0, sm, ast.getLangOpts());
  if (end.isValid()) main_offset(end, le);
  b = lb;
  e = le;
  return true;
}

namespace {
// Whether the statement's last token is its own (';' or '}' of a body) or
// the ';' that follows belongs to it.
bool ends_without_semi(const Stmt* s) {
  if (!s) return true;
  if (isa<CompoundStmt>(s) || isa<NullStmt>(s) || isa<DeclStmt>(s)) return true;
  if (const auto* i = dyn_cast<IfStmt>(s))
    return ends_without_semi(i->getElse() ? i->getElse() : i->getThen());
  if (const auto* f = dyn_cast<ForStmt>(s)) return ends_without_semi(f->getBody());
  if (const auto* w = dyn_cast<WhileStmt>(s)) return ends_without_semi(w->getBody());
  if (const auto* r = dyn_cast<CXXForRangeStmt>(s)) return ends_without_semi(r->getBody());
  if (const auto* w = dyn_cast<SwitchStmt>(s)) return ends_without_semi(w->getBody());
  if (const auto* l = dyn_cast<LabelStmt>(s)) return ends_without_semi(l->getSubStmt());
  if (const auto* c = dyn_cast<SwitchCase>(s)) return ends_without_semi(c->getSubStmt());
  if (const auto* a = dyn_cast<AttributedStmt>(s)) return ends_without_semi(a->getSubStmt());
  if (isa<CXXTryStmt>(s)) return true;
  return false;
}
}  // namespace

bool Context::stmt_extent(const Stmt* s, unsigned& b, unsigned& e) const {
  if (!stmt_range(s, b, e)) return false;
  if (ends_without_semi(s)) return true;
  SourceLocation last = sm.getExpansionRange(s->getSourceRange()).getEnd();
  auto tok = Lexer::findNextToken(last, sm, ast.getLangOpts());
  unsigned off;
  if (tok && tok->is(tok::semi) && main_offset(tok->getLocation(), off)) e = off + 1;
  return true;
}

std::string Context::text(unsigned b, unsigned e) const {
  llvm::StringRef buf = sm.getBufferData(main_fid);
  if (b > e || e > buf.size()) return {};
  return buf.substr(b, e - b).str();
}

std::string Context::text(SourceRange r) const {
  CharSourceRange cr = sm.getExpansionRange(r);
  cr.setTokenRange(true);
  return Lexer::getSourceText(cr, sm, ast.getLangOpts()).str();
}

// ---- local scopes for lookup --------------------------------------------------

namespace {

class ScopeWalker {
 public:
  ScopeWalker(Context& cx, std::vector<ScopedVar>& out) : cx_(cx), out_(out) {}

  void walk(const Stmt* s, unsigned b, unsigned e) {
    if (!s) return;
    unsigned sb, se;
    bool opens = isa<CompoundStmt>(s) || isa<ForStmt>(s) || isa<IfStmt>(s) || isa<WhileStmt>(s) ||
                 isa<SwitchStmt>(s) || isa<CXXForRangeStmt>(s) || isa<CXXCatchStmt>(s);
    if (opens && cx_.stmt_range(s, sb, se)) {
      b = sb;
      e = se;
    }
    if (const auto* ds = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : ds->decls())
        if (const auto* v = dyn_cast<VarDecl>(d)) add(v, b, e);
    }
    if (const auto* c = dyn_cast<CXXCatchStmt>(s))
      if (const VarDecl* v = c->getExceptionDecl()) add(v, b, e);
    for (const Stmt* child : s->children()) walk(child, b, e);
  }
  void add(const VarDecl* v, unsigned b, unsigned e) {
    unsigned off;
    if (cx_.main_offset(v->getLocation(), off)) out_.push_back({v, off, b, e});
  }

 private:
  Context& cx_;
  std::vector<ScopedVar>& out_;
};

const std::vector<ScopedVar>& scopes_of(Context& cx, const FunctionDecl* fn) {
  auto it = cx.scopes.find(fn);
  if (it != cx.scopes.end()) return it->second;
  std::vector<ScopedVar>& v = cx.scopes[fn];
  unsigned b = 0, e = 0;
  if (fn->hasBody() && cx.stmt_range(fn->getBody(), b, e)) {
    for (const ParmVarDecl* p : fn->parameters()) v.push_back({p, 0, b, e});
    ScopeWalker(cx, v).walk(fn->getBody(), b, e);
  }
  return v;
}

}  // namespace

// ---- lookup -------------------------------------------------------------------

const NamedDecl* lookup(Context& cx, const std::string& name, unsigned at, const FunctionDecl* fn) {
  if (fn) {
    const ScopedVar* best = nullptr;
    for (const ScopedVar& s : scopes_of(cx, fn)) {
      if (s.var->getName() != name) continue;
      if (s.decl_off > at || at < s.scope_begin || at >= s.scope_end) continue;
      if (!best || s.decl_off >= best->decl_off) best = &s;
    }
    if (best) return best->var;
    for (const ParmVarDecl* p : fn->parameters())
      if (p->getName() == name) return p;
  }
  const DeclContext* dc = fn ? fn->getDeclContext() : cx.ast.getTranslationUnitDecl();
  DeclarationName dn(&cx.ast.Idents.get(name));
  for (; dc; dc = dc->getParent()) {
    auto res = dc->lookup(dn);
    if (!res.empty()) return res.front();
  }
  return nullptr;
}

}  // namespace joulecc
