// Captures of task and taskloop bodies (clang_internal.hpp): the variables a
// body references and how each is shared, and in C the variables named by
// the clauses of nested constructs.
#include <clang/AST/RecursiveASTVisitor.h>
#include <llvm/ADT/APSInt.h>
#include <llvm/ADT/StringExtras.h>

#include "../parser/pragma_lexer.hpp"
#include "clang_internal.hpp"

using namespace clang;

namespace joulecc {

namespace {

class RefCollector : public RecursiveASTVisitor<RefCollector> {
 public:
  struct Ref {
    const VarDecl* var;
    std::vector<unsigned> offsets;  // rewritable references in the main file
    bool macro = false;             // some reference comes from a macro body
    SourceLocation first;
  };

  RefCollector(Context& cx, unsigned b, unsigned e, const std::set<const VarDecl*>& loop_vars)
      : cx_(cx), b_(b), e_(e), loop_vars_(loop_vars) {}

  bool VisitDeclRefExpr(DeclRefExpr* e) {
    block_extern(e);
    const auto* v = dyn_cast<VarDecl>(e->getDecl());
    if (v && v->hasGlobalStorage() && e->getLocation().isFileID()) {
      auto [fid, o] = cx_.sm.getDecomposedLoc(e->getLocation());
      if (fid == cx_.main_fid) globals_[v].push_back(o);  // renamed if a taskloop reduces it
    }
    if (!v || loop_vars_.count(v) || !captured_kind(v)) return true;
    unsigned off;
    if (cx_.main_offset(v->getLocation(), off) && off >= b_ && off < e_)
      return true;  // declared inside
    auto [it, fresh] = index_.emplace(v, refs_.size());
    if (fresh) refs_.push_back({v, {}, false, e->getLocation()});
    Ref& r = refs_[it->second];
    SourceLocation l = e->getLocation();
    if (l.isMacroID() && cx_.sm.isMacroArgExpansion(l)) l = cx_.sm.getSpellingLoc(l);
    auto [fid, o] = cx_.sm.getDecomposedLoc(l);
    if (l.isFileID() && fid == cx_.main_fid)
      r.offsets.push_back(o);
    else
      r.macro = true;
    return true;
  }
  bool VisitCXXThisExpr(CXXThisExpr*) {
    uses_this_ = true;
    return true;
  }
  bool VisitTagTypeLoc(TagTypeLoc tl) { return check_local(tl.getDecl(), tl.getBeginLoc()); }
  bool VisitTypedefTypeLoc(TypedefTypeLoc tl) {
    return check_local(tl.getTypedefNameDecl(), tl.getBeginLoc());
  }

  std::vector<Ref>& refs() { return refs_; }
  const std::vector<std::string>& externs() const { return externs_; }
  const std::vector<std::string>& extern_vars() const { return extern_vars_; }
  std::vector<LocalTypedef>& typedefs() { return typedefs_; }
  // References to globals and statics written in the main file.
  const std::map<const VarDecl*, std::vector<unsigned>>& globals() const { return globals_; }
  bool uses_this() const { return uses_this_; }

 private:
  // C: a function or variable declared `extern` inside the creating function
  // is not visible to the task outlined at file scope; its declaration is
  // repeated there (the variable is then a global: shared, never captured).
  void block_extern(const DeclRefExpr* e) {
    const auto* f = dyn_cast<DeclaratorDecl>(e->getDecl());
    if (!cx_.is_c() || !f || !f->getLexicalDeclContext()->isFunctionOrMethod()) return;
    const auto* v = dyn_cast<VarDecl>(f);
    if (!isa<FunctionDecl>(f) && !(v && v->hasExternalStorage())) return;
    unsigned off;
    if (cx_.main_offset(f->getLocation(), off) && off >= b_ && off < e_) return;
    std::string t = cx_.text(f->getSourceRange());
    if (!t.empty() && std::find(externs_.begin(), externs_.end(), t) == externs_.end())
      externs_.push_back(t);
    const std::string n = f->getNameAsString();
    if (v && std::find(extern_vars_.begin(), extern_vars_.end(), n) == extern_vars_.end())
      extern_vars_.push_back(n);
  }

  // Locals and parameters are captured; in C also static locals (outlined
  // code cannot name them). Globals never are.
  bool captured_kind(const VarDecl* v) const {
    if (v->isLocalVarDeclOrParm() && !v->hasGlobalStorage()) return true;
    return cx_.is_c() && v->hasGlobalStorage() && !v->hasExternalStorage() &&
           v->getParentFunctionOrMethod() != nullptr;
  }
  bool check_local(const NamedDecl* d, SourceLocation at) {
    if (!cx_.is_c() || !d || !d->getParentFunctionOrMethod()) return true;
    unsigned off;
    if (cx_.main_offset(d->getLocation(), off) && off >= b_ && off < e_) return true;
    if (!reported_.insert(d).second) return true;
    if (const auto* td = dyn_cast<TypedefNameDecl>(d)) {  // declared again where it is outlined
      LocalTypedef t;
      if (describe_local_typedef(cx_, td, t, at)) typedefs_.push_back(std::move(t));
      return true;
    }
    cx_.error(at, "the task uses type '" + d->getNameAsString() +
                      "' declared inside the function; joulecc outlines C tasks at file scope, "
                      "so declare the type at file scope");
    return true;
  }

  Context& cx_;
  unsigned b_, e_;
  const std::set<const VarDecl*>& loop_vars_;
  std::vector<Ref> refs_;
  std::vector<std::string> externs_, extern_vars_;
  std::vector<LocalTypedef> typedefs_;
  std::map<const VarDecl*, std::vector<unsigned>> globals_;
  std::map<const VarDecl*, std::size_t> index_;
  std::set<const NamedDecl*> reported_;
  bool uses_this_ = false;
};

std::string identity(Context& cx, QualType t, const std::string& op) {
  if (op == "+" || op == "-" || op == "|" || op == "^" || op == "||") return "0";
  if (op == "*" || op == "&&") return "1";
  if (op == "&") return "(~0)";
  bool max = op == "max";
  t = t.getCanonicalType().getUnqualifiedType();
  if (t->isRealFloatingType()) return max ? "(-__builtin_huge_val())" : "__builtin_huge_val()";
  if (t->isIntegerType() && !t->isBooleanType()) {
    unsigned bits = static_cast<unsigned>(cx.ast.getTypeSize(t));
    bool is_unsigned = !t->isSignedIntegerType();
    if (bits > 64) return "0";
    llvm::APSInt v = max ? llvm::APSInt::getMinValue(bits, is_unsigned)
                         : llvm::APSInt::getMaxValue(bits, is_unsigned);
    if (is_unsigned) return llvm::toString(v, 10, v.isSigned()) + "ULL";
    if (max) {
      llvm::APSInt one = v + llvm::APSInt::get(1).extOrTrunc(bits);
      return "(" + llvm::toString(one, 10, one.isSigned()) + "LL - 1)";
    }
    return llvm::toString(v, 10, v.isSigned()) + "LL";
  }
  return max ? "0" : "0";
}

// What a clause says about a variable; Sharing::FirstPrivate with found=false if nothing.
Sharing explicit_sharing(const Construct& c, const std::string& name, bool& found) {
  found = true;
  for (const Clause& cl : c.dir.clauses) {
    if (cl.canonical != "shared" && cl.canonical != "private" && cl.canonical != "firstprivate")
      continue;
    for (const Expr& a : cl.args) {
      if (a.text != name) continue;
      if (cl.canonical == "shared") return Sharing::Shared;
      return cl.canonical == "private" ? Sharing::Private : Sharing::FirstPrivate;
    }
  }
  found = false;
  return Sharing::FirstPrivate;
}

void decide(Context& cx, Construct& c, const VarDecl* v, Capture& cap, SourceLocation first) {
  bool found = false;
  cap.sharing = explicit_sharing(c, cap.name, found);
  if (found) return;
  bool pointer = v->getType().getNonReferenceType()->isPointerType();
  for (const RegionRef& r : c.deps) {
    if (r.region.base_name != cap.name) continue;
    if (r.kind == "reduction" && c.kind == CKind::Taskloop) {
      QualType t = v->getType().getNonReferenceType();
      cap.reduction = true;
      cap.red_op = r.red_op;
      // A section or a shaped pointer: each chunk reduces into an array copy
      // of the elements; the pointer itself is firstprivate.
      cap.red_elems = !r.region.shape.empty() || !r.region.sections.empty();
      cap.sharing = cap.red_elems && pointer ? Sharing::FirstPrivate : Sharing::Shared;
      if (cap.red_elems && pointer)
        t = t->getPointeeType();
      else if (cap.red_elems && t->isArrayType())
        t = cx.ast.getAsArrayType(t)->getElementType();
      // Rows (a[0;n][0;m], a pointer to rows): reduced element by element too.
      for (; cap.red_elems && t->isArrayType(); ++cap.red_rank)
        t = cx.ast.getAsArrayType(t)->getElementType();
      if (cap.red_elems && !t->isArithmeticType())
        cx.error(first, "taskloop reduction on '" + cap.name +
                            "': the elements must be of an arithmetic type (an array, a "
                            "section or a shaped pointer of numbers)");
      cap.red_identity = identity(cx, t, r.red_op);
      return;
    }
    bool whole = r.region.base_is_name && r.region.shape.empty() && r.region.sections.empty() &&
                 r.array_param.empty();
    cap.sharing = whole || !pointer ? Sharing::Shared : Sharing::FirstPrivate;
    if (cap.sharing == Sharing::Shared) return;
  }
  if (cap.sharing == Sharing::FirstPrivate && pointer) {
    bool named = false;
    for (const RegionRef& r : c.deps) named = named || r.region.base_name == cap.name;
    if (named) return;
  }
  if (cap.static_storage) {
    cap.sharing = Sharing::Shared;
    return;
  }
  if (const Clause* d = c.dir.find("default")) {
    if (d->modifier == "shared")
      cap.sharing = Sharing::Shared;
    else if (d->modifier == "private")
      cap.sharing = Sharing::Private;
    else if (d->modifier == "none")
      cx.error(first, "variable '" + cap.name +
                          "' needs an explicit data-sharing clause: default(none) is in effect");
  }
}

// C outlines a task's body into another function, where a firstprivate copy
// read from the argument block is no longer a known constant; a const
// scalar with a constant initialiser is declared again there instead (its
// value cannot change, C11 6.7.3p6), so loops keep constant strides.
std::string constant_init(Context& cx, const VarDecl* v, const Capture& cap) {
  QualType t = v->getType();
  if (cap.sharing != Sharing::FirstPrivate || cap.static_storage || !t.isConstQualified() ||
      t.isVolatileQualified() || !v->getInit() || isa<ParmVarDecl>(v))
    return {};
  const clang::Expr* init = v->getInit();
  if (t->isIntegerType() && !t->isBooleanType()) {
    clang::Expr::EvalResult r;
    if (!init->EvaluateAsInt(r, cx.ast)) return {};
    const llvm::APSInt& k = r.Val.getInt();
    if (k.isSigned() && k.isNegative())  // -(|k| - 1) - 1: LLONG_MIN has no literal
      return "(" + std::to_string(k.getExtValue() + 1) + "LL - 1)";
    return "(" + llvm::toString(k, 10, k.isSigned()) + (k.isSigned() ? "LL" : "ULL") + ")";
  }
  const clang::Expr* lit = init->IgnoreParenImpCasts();
  if (const auto* u = dyn_cast<UnaryOperator>(lit); u && u->getOpcode() == UO_Minus)
    lit = u->getSubExpr()->IgnoreParenImpCasts();
  if (t->isRealFloatingType() && (isa<FloatingLiteral>(lit) || isa<IntegerLiteral>(lit)))
    return "(" + cx.text(init->getSourceRange()) + ")";
  return {};
}

}  // namespace

namespace {

// A taskloop's chunks run concurrently, so a global it reduces needs a
// private copy per chunk as a local does (the copy hides the global in the
// chunk); left alone, the chunks would update the global together.
void add_global_reductions(Context& cx, Construct& c, const FunctionDecl* fn,
                           const std::map<const VarDecl*, std::vector<unsigned>>& refs) {
  for (const RegionRef& r : c.deps) {
    if (r.kind != "reduction" || !r.region.base_is_name) continue;
    const auto* v = dyn_cast_or_null<VarDecl>(lookup(cx, r.region.base_name, c.pragma.begin, fn));
    if (!v || !v->hasGlobalStorage()) continue;
    const int id = cx.var_id(v);
    bool have = false;
    for (const Capture& k : c.captures) have = have || k.var_id == id;
    if (have) continue;
    Capture cap;
    cap.var_id = id;
    cap.name = r.region.base_name;
    cap.static_storage = cx.is_c();
    cap.global = true;
    const SourceLocation at = cx.loc(c.src, c.pragma.offset_of(r.region.base_name_pos));
    decide(cx, c, v, cap, at);
    if (cx.is_c() && !describe_type(cx, v->getType(), cap.type, at, cap.name)) continue;
    if (auto it = refs.find(v); cx.is_c() && it != refs.end())
      for (unsigned off : it->second) cx.renames[off] = {cap.var_id, cap.name};
    c.captures.push_back(std::move(cap));
  }
}

}  // namespace

void analyze_captures(Context& cx, Construct& c, const Stmt* body, const FunctionDecl* fn,
                      const std::set<const VarDecl*>& loop_vars) {
  unsigned b = c.body_begin, e = c.body_end;
  RefCollector rc(cx, b, e, loop_vars);
  rc.TraverseStmt(const_cast<Stmt*>(body));
  c.uses_this = rc.uses_this();
  c.block_externs = rc.externs();
  c.extern_vars = rc.extern_vars();
  c.typedefs = std::move(rc.typedefs());
  unsigned at = c.pragma.begin;
  for (const Clause& cl : c.dir.clauses) {
    if (cl.form != ArgForm::Names || !cx.is_c()) continue;
    for (const Expr& a : cl.args)
      if (!lookup(cx, a.text, at, fn) && !cx.macros.count(a.text))
        cx.error_at(c, a.pos, "use of undeclared identifier '" + a.text + "'");
  }
  for (auto& r : rc.refs()) {
    Capture cap;
    cap.var_id = cx.var_id(r.var);
    cap.name = r.var->getNameAsString();
    cap.static_storage = r.var->hasGlobalStorage();
    // Not one whose value may be needed as a constant (an array bound): a
    // parameter would not be one.
    cap.scalar = r.var->getType()->isScalarType() &&
                 !(!cx.is_c() && r.var->isUsableInConstantExpressions(cx.ast));
    decide(cx, c, r.var, cap, r.first);
    if (cx.is_c()) {
      if (!describe_type(cx, r.var->getType(), cap.type, r.first, cap.name)) continue;
      if (cap.type.shape == CType::Shape::Scalar) cap.const_value = constant_init(cx, r.var, cap);
      for (unsigned off : r.offsets) cx.renames[off] = {cap.var_id, cap.name};
      bool array = cap.type.shape == CType::Shape::Array && cap.sharing != Sharing::Private;
      bool via_pointer =
          !cap.reduction &&
          (array || ((cap.sharing == Sharing::Shared || cap.static_storage) &&
                     cap.type.shape != CType::Shape::PtrToArray &&
                     cap.type.shape != CType::Shape::VmPointer && cap.sharing != Sharing::Private));
      if (r.macro && via_pointer) c.macro_shared.push_back(cap.name);
    }
    c.captures.push_back(std::move(cap));
  }
  if (c.kind == CKind::Taskloop) add_global_reductions(cx, c, fn, rc.globals());
}

namespace {

// Identifiers of an expression text (not member names).
std::vector<std::string> identifiers(const std::string& text) {
  std::vector<Token> toks;
  LexError le;
  std::vector<std::string> out;
  if (!lex(text, toks, le)) return out;
  for (std::size_t i = 0; i + 1 < toks.size(); ++i) {
    if (toks[i].kind != Tok::Ident) continue;
    if (i > 0 && (toks[i - 1].is(".") || toks[i - 1].is("->") || toks[i - 1].is("::"))) continue;
    out.push_back(toks[i].text);
  }
  return out;
}

}  // namespace

// C: t captures the locals that clause item `a` of construct n names
// (n in t's body, or t itself), unless declared inside t's body.
void capture_clause_item(Context& cx, Construct& t, const Construct& n, const FunctionDecl* nfn,
                         const Expr& a) {
  for (const std::string& id : identifiers(a.text)) {
    const auto* v = dyn_cast_or_null<VarDecl>(lookup(cx, id, n.pragma.begin, nfn));
    if (!v || (!v->isLocalVarDeclOrParm() && !v->getParentFunctionOrMethod())) continue;
    if (v->isFileVarDecl()) continue;
    unsigned off;
    if (cx.main_offset(v->getLocation(), off) && off >= t.body_begin && off < t.body_end) continue;
    int id_v = cx.var_id(v);
    bool have = false;
    for (const Capture& c : t.captures) have = have || c.var_id == id_v;
    if (have) continue;
    Capture cap;
    cap.var_id = id_v;
    cap.name = id;
    cap.static_storage = v->hasGlobalStorage();
    decide(cx, t, v, cap, cx.loc(n.src, n.pragma.offset_of(a.pos)));
    if (!describe_type(cx, v->getType(), cap.type, cx.loc(n.src, n.pragma.begin), id)) continue;
    t.captures.push_back(std::move(cap));
  }
}

// C: variables named only by clauses of nested constructs, and by a
// taskloop's own reductions on sections (each chunk evaluates the region
// to build its copy: `reduction(+: ([n][m]p)[0;k][0;m])`).
void add_clause_captures(Context& cx,
                         const std::vector<std::pair<Construct*, const FunctionDecl*>>& all) {
  for (auto [t, tfn] : all) {
    if (t->kind != CKind::Task && t->kind != CKind::Taskloop) continue;
    if (t->function_task) continue;
    for (auto [n, nfn] : all) {
      if (n == t && t->kind == CKind::Taskloop)
        for (const Clause& cl : t->dir.clauses)
          if (cl.canonical == "reduction")
            for (const Expr& a : cl.args) capture_clause_item(cx, *t, *t, tfn, a);
      if (n == t || n->begin < t->body_begin || n->end > t->body_end || nfn != tfn) continue;
      for (const Clause& cl : n->dir.clauses)
        for (const Expr& a : cl.args) capture_clause_item(cx, *t, *n, nfn, a);
    }
  }
}

}  // namespace joulecc
