// C variably modified types in outlined tasks. A C task becomes a function
// at file scope, where the sizes of a type such as `double (**a)[n]` or a
// local `typedef double (*row_t)[n]` no longer exist. As GCC's OpenMP
// outlining does, the sizes are captured by value when the task is created
// and the outlined function declares the type again from them.
//
// A size is fixed when its declaration runs (C11 6.7.6.2p5), so the creator
// does not evaluate `n` again (it may have changed since): it takes
// sizeof of an object of that part of the type. Behind a pointer there is
// no object to take it from without reading memory the program may not
// own, so each level is reached through a pointer to a local of the
// creator that points to itself (`void *__jvp = &__jvp`): every read the
// sizeof operand implies stays inside that local.
#include <llvm/ADT/StringExtras.h>

#include "clang_internal.hpp"

using namespace clang;

namespace joulecc {
namespace {

class VmBuilder {
 public:
  VmBuilder(Context& cx, std::string slot_prefix) : cx_(cx), prefix_(std::move(slot_prefix)) {}

  // t as a declarator with `inner` in place of the name; lval is an lvalue
  // of type t in the creator ('@' for the object the sizes are taken from).
  bool declarator(QualType t, const std::string& inner, const std::string& lval, std::string& out) {
    if (!t->isVariablyModifiedType()) {
      out = print_type(cx_, t, inner);
      return true;
    }
    if (const auto* p = dyn_cast<PointerType>(t.getCanonicalType().getTypePtr())) {
      std::string in = "*" + qualifiers(t) + inner;
      QualType pointee = p->getPointeeType();
      if (pointee->isArrayType() || pointee->isFunctionType()) in = "(" + in + ")";
      return declarator(pointee, in, "(*(__typeof__(" + lval + "))__jvp)", out);
    }
    const ArrayType* a = cx_.ast.getAsArrayType(t);
    if (!a) {
      why_ = "a function type in it";
      return false;
    }
    const std::string elem = "(" + lval + ")[0]";
    if (const auto* ca = dyn_cast<ConstantArrayType>(a))
      return declarator(a->getElementType(),
                        inner + "[" + llvm::toString(ca->getSize(), 10, false) + "]", elem, out);
    if (!isa<VariableArrayType>(a)) {
      why_ = "an array of unknown size inside it";
      return false;
    }
    const std::string slot = prefix_ + std::to_string(sizes_.size());
    sizes_.push_back("(long)(sizeof(" + lval + ") / sizeof(" + elem + "))");
    return declarator(a->getElementType(), inner + "[" + slot + "]", elem, out);
  }

  std::vector<std::string>& sizes() { return sizes_; }
  const std::string& why() const { return why_; }

 private:
  static std::string qualifiers(QualType t) {
    std::string q;
    if (t.isConstQualified()) q += " const";
    if (t.isVolatileQualified()) q += " volatile";
    if (t.isRestrictQualified()) q += " restrict";
    return q.empty() ? q : q + " ";
  }

  Context& cx_;
  std::string prefix_;
  std::vector<std::string> sizes_;
  std::string why_;
};

}  // namespace

bool describe_vm_pointer(Context& cx, QualType t, CType& out, SourceLocation at,
                         const std::string& name) {
  VmBuilder b(cx, "__jd_" + name + "_");
  std::string decl;
  if (!b.declarator(t.getCanonicalType().getUnqualifiedType(), "@", "@", decl)) {
    cx.error(at, "the variably modified type of '" + name + "' is not supported by joulecc (" +
                     b.why() + ")");
    return false;
  }
  out.shape = CType::Shape::VmPointer;
  out.decl = out.decl_q = decl;
  out.vm_sizes = std::move(b.sizes());
  out.dims.assign(out.vm_sizes.size(), "");
  return true;
}

bool describe_local_typedef(Context& cx, const TypedefNameDecl* d, LocalTypedef& out,
                            SourceLocation at) {
  const std::string name = d->getNameAsString();
  QualType t = d->getUnderlyingType().getCanonicalType();
  if (const NamedDecl* lt = local_type(t)) {
    cx.error(at, "the task uses type '" + name + "', whose type '" + lt->getNameAsString() +
                     "' is declared inside the function; joulecc outlines C tasks at file "
                     "scope, so declare the type at file scope");
    return false;
  }
  VmBuilder b(cx, "__jt_" + name + "_");
  std::string decl;
  if (!b.declarator(t, "@", "@", decl)) {
    cx.error(at, "the variably modified type '" + name + "' is not supported by joulecc (" +
                     b.why() + ")");
    return false;
  }
  out.name = name;
  out.decl = decl;
  out.sizes = std::move(b.sizes());
  return true;
}

}  // namespace joulecc
