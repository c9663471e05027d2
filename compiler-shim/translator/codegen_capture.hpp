// How a task's captures appear in its generated code, shared by the task,
// taskloop and task-function generators (codegen_tasks.cpp,
// codegen_taskloop.cpp, codegen_task_functions.cpp).
#pragma once

#include <string>

#include "model.hpp"

namespace joulecc {

// Puts inner where the declarator's '@' is.
inline std::string subst(const std::string& decl, const std::string& inner) {
  std::size_t at = decl.find('@');
  if (at == std::string::npos) return decl + " " + inner;
  return decl.substr(0, at) + inner + decl.substr(at + 1);
}

// Scalars and records that are shared (or static locals) are reached through
// a pointer; so are arrays (the whole array, so that sizeof and &a keep their
// meaning), shared or firstprivate.
// A taskloop reduction on a scalar: each chunk's copy is a local.
inline bool scalar_reduction(const Capture& c) { return c.reduction && !c.red_elems; }
inline bool via_pointer(const Capture& c) {
  return (c.sharing == Sharing::Shared || c.static_storage) && !scalar_reduction(c) &&
         c.type.shape != CType::Shape::PtrToArray && c.type.shape != CType::Shape::VmPointer;
}

inline bool skipped(const Capture& c) {
  return c.loop_var || (c.sharing == Sharing::Private && !c.reduction) || !c.const_value.empty();
}

// The task declares its own: the creator's variable stays unused there.
inline bool unused_at_site(const Capture& c) {
  return (c.sharing == Sharing::Private && !c.reduction) || !c.const_value.empty();
}

// C: the block-scope extern declarations the outlined code uses, repeated
// at file scope before it (C11 6.2.1p4: a block-scope declaration is not
// visible outside its block); at the site, a use of each variable, which
// the creator may no longer name.
inline std::string extern_decls(const Construct& c) {
  std::string t;
  for (const std::string& d : c.block_externs) t += d + ";\n";
  return t;
}
inline std::string extern_uses(const Construct& c) {
  std::string t;
  for (const std::string& n : c.extern_vars) t += "(void)" + n + ";\n";
  return t;
}

}  // namespace joulecc
