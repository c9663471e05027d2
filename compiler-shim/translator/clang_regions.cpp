// Data references of clauses (clang_internal.hpp, check_regions): the names
// they are based on, their sections checked against the declared types.
#include <clang/AST/DeclCXX.h>
#include <llvm/ADT/APSInt.h>
#include <llvm/ADT/StringExtras.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "clang_internal.hpp"

using namespace clang;

namespace joulecc {

namespace {

bool is_type_name(const NamedDecl* d) { return isa<TypeDecl>(d); }

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

// Checks sections against the type of a named base; fills the first dimension
// of array parameters named whole.
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

}  // namespace joulecc
