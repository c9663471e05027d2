// C type descriptions (clang_internal.hpp): what outlined C code needs to
// declare a captured variable or a task function's parameter again.
#include <clang/AST/DeclCXX.h>
#include <llvm/ADT/APSInt.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/raw_ostream.h>

#include "clang_internal.hpp"

using namespace clang;

namespace joulecc {

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
