// Semantic analysis on the Clang AST: name lookup for clause expressions,
// data-sharing of captured variables, C type descriptions, taskloop nests.
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>
#include <llvm/ADT/APSInt.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "../parser/pragma_lexer.hpp"
#include "clang_internal.hpp"

using namespace clang;

namespace joulecc {
namespace {

// ---- local scopes for lookup --------------------------------------------------

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

bool is_type_name(const NamedDecl* d) { return isa<TypeDecl>(d); }

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

std::string print_type(Context& cx, QualType t, const std::string& placeholder) {
  PrintingPolicy pp(cx.ast.getLangOpts());
  pp.SuppressTagKeyword = false;
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os, pp, placeholder);
  return os.str();
}

// A type declared inside a function cannot be named by outlined C code.
const NamedDecl* local_type(QualType t) {
  for (int guard = 0; guard < 16 && !t.isNull(); ++guard) {
    if (const auto* td = t->getAs<TypedefType>()) {
      if (td->getDecl()->getParentFunctionOrMethod()) return td->getDecl();
    }
    if (const TagDecl* tag = t->getAsTagDecl()) {
      if (tag->getParentFunctionOrMethod()) return tag;
      return nullptr;
    }
    if (t->isPointerType() || t->isReferenceType())
      t = t->getPointeeType();
    else if (t->isArrayType())
      t = QualType(t->getPointeeOrArrayElementType(), 0);
    else
      return nullptr;
  }
  return nullptr;
}

// ---- Context helpers ------------------------------------------------------------

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

// ---- data references --------------------------------------------------------------

namespace {

// Checks sections against the type of a named base; fills the first dimension
// of array parameters named whole.
// Level by level, whether subscripting a value of type t goes through a
// pointer (true) or into an array.
std::vector<bool> pointer_levels(Context& cx, QualType t) {
  std::vector<bool> out;
  for (t = t.getNonReferenceType(); out.size() < 16;) {
    if (const ArrayType* a = cx.ast.getAsArrayType(t)) {
      out.push_back(false);
      t = a->getElementType();
    } else if (t->isPointerType()) {
      out.push_back(true);
      t = t->getPointeeType();
    } else {
      break;
    }
  }
  return out;
}

void check_named_region(Context& cx, Construct& c, RegionRef& r, const VarDecl* v) {
  const Region& g = r.region;
  QualType t = v->getType().getNonReferenceType();
  if (g.sections.empty() && g.shape.empty()) {
    if (const auto* p = dyn_cast<ParmVarDecl>(v)) {
      QualType o = p->getOriginalType();
      if (const auto* ca = cx.ast.getAsConstantArrayType(o))
        r.array_param = llvm::toString(ca->getSize(), 10, false);
      else if (const auto* va = cx.ast.getAsVariableArrayType(o))
        r.array_param = cx.text(va->getSizeExpr()->getSourceRange());
    }
    return;
  }
  if (!g.shape.empty()) return;
  // C++ containers with operator[] and contiguous storage (std::vector, std::array):
  // one dimension, bounds given.
  if (!cx.is_c() && t->isRecordType() && g.sections.size() == 1) return;
  for (std::size_t i = 0; i < g.sections.size(); ++i) {
    const Section& s = g.sections[i];
    bool open_end = s.form != Section::Form::Single && s.second.empty();
    if (const ArrayType* at = cx.ast.getAsArrayType(t)) {
      if (open_end && isa<IncompleteArrayType>(at))
        cx.error_at(c, s.lo.pos,
                    "the section of '" + g.base_name + "' needs a length: its size is unknown");
      t = at->getElementType();
    } else if (t->isPointerType() && i == 0) {
      if (open_end)
        cx.error_at(
            c, g.base_name_pos,
            "the section of pointer '" + g.base_name + "' needs a length or an upper bound");
      t = t->getPointeeType();
    } else if (t->isPointerType()) {
      cx.error_at(c, g.base_name_pos,
                  "'" + g.base_name +
                      "': only the first dimension of a section may be a pointer; "
                      "use shaping ([n][m]p) or an array type");
      return;
    } else {
      cx.error_at(c, g.base_name_pos,
                  "section of '" + g.base_name + "', which is neither an array nor a pointer");
      return;
    }
  }
}

// The JOULE_TYPE_* constant of the elements a reduction on v covers (v
// itself, the elements of an array v, or what a pointer v points to), or
// "" when joule has no built-in operator for them.
std::string reduction_type(const RegionRef& r, const VarDecl* v) {
  QualType t = v->getType().getNonReferenceType();
  if (const auto* p = dyn_cast<ParmVarDecl>(v)) t = p->getOriginalType().getNonReferenceType();
  while (t->isArrayType()) t = t->getAsArrayTypeUnsafe()->getElementType();
  const Region& g = r.region;
  bool element = !g.shape.empty() || !g.sections.empty() || !r.array_param.empty();
  if (element && t->isPointerType()) t = t->getPointeeType();
  while (t->isArrayType()) t = t->getAsArrayTypeUnsafe()->getElementType();
  const auto* b = dyn_cast<BuiltinType>(t.getCanonicalType().getTypePtr());
  if (!b) return "";
  switch (b->getKind()) {
    case BuiltinType::Char_S:
    case BuiltinType::Char_U:
      return "JOULE_TYPE_CHAR";
    case BuiltinType::SChar:
      return "JOULE_TYPE_SCHAR";
    case BuiltinType::UChar:
      return "JOULE_TYPE_UCHAR";
    case BuiltinType::Short:
      return "JOULE_TYPE_SHORT";
    case BuiltinType::UShort:
      return "JOULE_TYPE_USHORT";
    case BuiltinType::Int:
      return "JOULE_TYPE_INT";
    case BuiltinType::UInt:
      return "JOULE_TYPE_UINT";
    case BuiltinType::Long:
      return "JOULE_TYPE_LONG";
    case BuiltinType::ULong:
      return "JOULE_TYPE_ULONG";
    case BuiltinType::LongLong:
      return "JOULE_TYPE_LLONG";
    case BuiltinType::ULongLong:
      return "JOULE_TYPE_ULLONG";
    case BuiltinType::Float:
      return "JOULE_TYPE_FLOAT";
    case BuiltinType::Double:
      return "JOULE_TYPE_DOUBLE";
    case BuiltinType::LongDouble:
      return "JOULE_TYPE_LDOUBLE";
    case BuiltinType::Bool:
      return "JOULE_TYPE_BOOL";
    default:
      return "";
  }
}

std::string_view strip_parens(std::string_view t) {
  auto blank = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; };
  for (;;) {
    while (!t.empty() && blank(t.front())) t.remove_prefix(1);
    while (!t.empty() && blank(t.back())) t.remove_suffix(1);
    if (t.size() < 2 || t.front() != '(' || t.back() != ')') return t;
    t = t.substr(1, t.size() - 2);
  }
}

// A section bound joulecc can see is constant: a signed integer literal, an
// enumerator or a const integer variable with a constant initialiser
// (parentheses allowed). Anything else is checked at run time.
std::optional<long long> constant_value(Context& cx, std::string_view t, unsigned at,
                                        const FunctionDecl* fn) {
  t = strip_parens(t);
  long long sign = 1;
  while (!t.empty() && (t.front() == '-' || t.front() == '+')) {
    if (t.front() == '-') sign = -sign;
    t = strip_parens(t.substr(1));
  }
  if (t.empty()) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(t.front()))) {
    const std::string digits(t);
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(digits.c_str(), &end, 0);
    if (errno || std::string_view(end).find_first_not_of("uUlL") != std::string_view::npos)
      return std::nullopt;
    return sign * v;
  }
  const NamedDecl* d = lookup(cx, std::string(t), at, fn);
  if (const auto* e = dyn_cast_or_null<EnumConstantDecl>(d))
    return sign * e->getInitVal().getExtValue();
  const auto* v = dyn_cast_or_null<VarDecl>(d);
  if (!v || !v->getType().isConstQualified() || !v->getType()->isIntegerType() || !v->getInit())
    return std::nullopt;
  clang::Expr::EvalResult r;
  if (!v->getInit()->EvaluateAsInt(r, cx.ast)) return std::nullopt;
  return sign * r.Val.getInt().getExtValue();
}

// A constant section length <= 0 (a[lo;len], or a[lo:hi] with hi < lo) is an
// error here: at run time it would name most of the address space.
void check_lengths(Context& cx, Construct& c, const Region& g, unsigned at,
                   const FunctionDecl* fn) {
  for (const Section& s : g.sections) {
    if (s.form == Section::Form::Single || s.second.empty()) continue;
    std::optional<long long> len = constant_value(cx, s.second.text, at, fn);
    if (len && s.form == Section::Form::Upper) {
      const auto lo =
          s.lo.empty() ? std::optional<long long>(0) : constant_value(cx, s.lo.text, at, fn);
      len = lo ? std::optional<long long>(*len - *lo + 1) : std::nullopt;
    }
    if (len && *len <= 0)
      cx.error_at(c, s.second.pos,
                  "the section of '" + (g.base_name.empty() ? g.base.text : g.base_name) +
                      "' has length " + std::to_string(*len) + "; a section length must be > 0");
  }
}

}  // namespace

void check_regions(Context& cx, Construct& c, unsigned at, const FunctionDecl* fn) {
  for (auto* list : {&c.deps, &c.copies}) {
    for (RegionRef& r : *list) {
      const Region& g = r.region;
      check_lengths(cx, c, g, at, fn);
      if (g.shape.empty() && (!g.lvalue_syntax || (g.base_is_call && cx.is_c()))) {
        cx.error_at(c, g.whole.pos,
                    "'" + g.whole.text +
                        "' is not an lvalue: a dependence names data "
                        "(x, *p, p->f, a[i], a[lo;len], [n]p)");
        continue;
      }
      if (g.base_name.empty() || g.base_name == "this") continue;
      const NamedDecl* d = lookup(cx, g.base_name, at, fn);
      if (!d) {
        if (cx.is_c() && !cx.macros.count(g.base_name))
          cx.error_at(c, g.base_name_pos, "use of undeclared identifier '" + g.base_name + "'");
        continue;
      }
      if (g.base_is_name && g.shape.empty() &&
          (isa<EnumConstantDecl>(d) || isa<FunctionDecl>(d) || is_type_name(d))) {
        cx.error_at(c, g.base_name_pos, "'" + g.base_name + "' is not an lvalue");
        continue;
      }
      if (const auto* v = dyn_cast<VarDecl>(d)) {
        if (g.base_is_name) check_named_region(cx, c, r, v);
        r.ptr_levels = pointer_levels(cx, v->getType());
        // A global is not captured, so the body could not be pointed at
        // the copy (C captures static locals; C++ captures neither).
        bool reachable = !v->hasGlobalStorage() || (cx.is_c() && v->isStaticLocal());
        // A taskloop's own dependency carries the operator too (codegen's
        // loop_reduction); its chunks keep their own copies, reachable or not.
        if (g.base_is_name && r.kind == "reduction" &&
            ((c.kind == CKind::Task && reachable) || c.kind == CKind::Taskloop))
          r.red_type = reduction_type(r, v);
      }
    }
  }
}

// ---- C types --------------------------------------------------------------------

bool describe_type(Context& cx, QualType t, CType& out, SourceLocation at,
                   const std::string& name) {
  out = CType{};
  if (const auto* dt = t->getAs<DecayedType>()) t = dt->getDecayedType();
  if (t->isPointerType() && !t->getPointeeType()->isVariablyModifiedType() &&
      t.getCanonicalType() != t && !t.getCanonicalType()->isVariablyModifiedType())
    t = cx.ast.getPointerType(t->getPointeeType()).withFastQualifiers(t.getLocalFastQualifiers());
  // A local typedef is spelt out (its sizes, if any, are the variable's).
  if (const NamedDecl* lt = local_type(t); lt && isa<TypedefNameDecl>(lt)) t = t.getCanonicalType();
  if (const NamedDecl* lt = local_type(t)) {
    cx.error(at, "the task uses '" + name + "' whose type '" + lt->getNameAsString() +
                     "' is declared inside the function; joulecc outlines C tasks at file scope, "
                     "so declare the type at file scope");
    return false;
  }
  if (t->isPointerType() && t->isVariablyModifiedType() &&
      (!t->getPointeeType()->isArrayType() ||
       cx.ast.getBaseElementType(t->getPointeeType())->isVariablyModifiedType()))
    return describe_vm_pointer(cx, t, out, at, name);
  if (t->isArrayType() ||
      (t->isPointerType() && t->getPointeeType()->isArrayType() && t->isVariablyModifiedType())) {
    bool ptr = t->isPointerType();
    out.shape = ptr ? CType::Shape::PtrToArray : CType::Shape::Array;
    QualType q = ptr ? t->getPointeeType() : t;
    while (const ArrayType* a = cx.ast.getAsArrayType(q)) {
      if (const auto* ca = dyn_cast<ConstantArrayType>(a))
        out.dims.push_back(llvm::toString(ca->getSize(), 10, false));
      else if (isa<VariableArrayType>(a))
        out.dims.push_back("");
      else {
        cx.error(at, "'" + name + "' has an array type of unknown size");
        return false;
      }
      q = a->getElementType();
    }
    if (q->isVariablyModifiedType()) {
      cx.error(at, "the variably modified type of '" + name + "' is not supported by joulecc");
      return false;
    }
    out.elem = print_type(cx, q, "@");
    return true;
  }
  if (t->isVariablyModifiedType()) {
    cx.error(at, "the variably modified type of '" + name + "' is not supported by joulecc");
    return false;
  }
  out.shape = t->isRecordType() ? CType::Shape::Record : CType::Shape::Scalar;
  QualType unq = t.isConstQualified() || t.isVolatileQualified()
                     ? t.getCanonicalType().getUnqualifiedType()
                     : t;
  out.decl = print_type(cx, unq, "@");
  out.decl_q = print_type(cx, t, "@");
  if (out.decl.find("(unnamed") != std::string::npos ||
      out.decl.find("(anonymous") != std::string::npos) {
    cx.error(at, "the task uses '" + name +
                     "' whose type has no name; give the type a name "
                     "(or a typedef) at file scope");
    return false;
  }
  return true;
}

// ---- captures -----------------------------------------------------------------

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

// ---- taskloop -----------------------------------------------------------------

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

// ---- task functions -------------------------------------------------------------

bool analyze_function(Context& cx, FunctionTask& f, const FunctionDecl* fd) {
  SourceLocation at = fd->getLocation();
  if (!fd->getReturnType()->isVoidType()) {
    cx.error(at, "a task function must return void");
    return false;
  }
  if (isa<CXXMethodDecl>(fd)) {
    cx.error(at,
             "joulecc does not support task pragmas on member functions; put the pragma on a "
             "statement instead");
    return false;
  }
  if (fd->isTemplated() || fd->isVariadic()) {
    cx.error(at, std::string("joulecc does not support ") +
                     (fd->isVariadic() ? "variadic" : "template") + " task functions");
    return false;
  }
  f.name = fd->getNameAsString();
  f.wrapper = "__joule_spawn_" + f.name;
  std::string proto, def;
  unsigned i = 0;
  for (const ParmVarDecl* p : fd->parameters()) {
    std::string name = p->getName().empty() ? "__jparam" + std::to_string(i) : p->getNameAsString();
    std::string full = print_type(cx, p->getType(), name);
    std::string text = full, text_def = full;
    if (!p->getName().empty()) {
      std::string written = cx.text(p->getSourceRange());  // keeps VLA sizes and macros
      if (!written.empty()) text = written;
      text_def = p->hasDefaultArg() ? full : text;
    }
    proto += (i ? ", " : "") + text;
    def += (i ? ", " : "") + text_def;
    f.param_names.push_back(name);
    f.param_is_ref.push_back(p->getType()->isReferenceType());
    f.param_is_ptr.push_back(p->getType()->isPointerType() || p->getType()->isArrayType());
    CType ct;
    if (cx.is_c() && !describe_type(cx, p->getType(), ct, p->getLocation(), name)) return false;
    f.param_types.push_back(ct);
    ++i;
  }
  f.params_proto = i ? proto : (cx.is_c() ? "void" : "");
  f.params_def = i ? def : f.params_proto;
  for (const DeclContext* dc = fd->getDeclContext(); dc; dc = dc->getParent()) {
    if (const auto* ns = dyn_cast<NamespaceDecl>(dc)) {
      if (ns->isAnonymousNamespace() || ns->isInline()) {
        cx.error(at, "joulecc does not support task functions in anonymous or inline namespaces");
        return false;
      }
      f.namespaces.insert(f.namespaces.begin(), ns->getNameAsString());
    }
  }
  return true;
}

}  // namespace joulecc
