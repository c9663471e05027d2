// Tasks: C outlining (an argument block and a function) and C++ lambdas.
#include "codegen.hpp"
#include "codegen_capture.hpp"

namespace joulecc {
namespace {

std::string zeros(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += "[0]";
  return s;
}

// An array reached as a view of its elements (see via_pointer).
bool array_view(const Capture& c) {
  return c.type.shape == CType::Shape::Array && !scalar_reduction(c) &&
         c.sharing != Sharing::Private;
}

// Array dimensions as declarator text, from dimension `from`; variable ones
// are the locals __jd_<name>_<i>.
std::string dims_text(const Capture& c, std::size_t from) {
  std::string s;
  for (std::size_t i = from; i < c.type.dims.size(); ++i)
    s += "[" +
         (c.type.dims[i].empty() ? "__jd_" + c.name + "_" + std::to_string(i) : c.type.dims[i]) +
         "]";
  return s;
}

// A run-time size of a variably modified type (clang_vm_types.cpp) with
// '@' replaced by the object it is taken from.
std::string at_object(const std::string& size, const std::string& object) {
  std::string out;
  for (char ch : size) out += ch == '@' ? "(" + object + ")" : std::string(1, ch);
  return out;
}

// The creator's self-pointing local through which those sizes are taken,
// and the sizes of the local typedefs the task declares again.
std::string vm_probe(const Construct& c) {
  std::string t;
  for (const LocalTypedef& d : c.typedefs)
    for (std::size_t k = 0; k < d.sizes.size(); ++k)
      t += "__ja->__jt_" + d.name + "_" + std::to_string(k) + " = " +
           at_object(d.sizes[k], "*(" + d.name + " *)__jvp") + ";\n";
  bool any = !t.empty();
  for (const Capture& cap : c.captures) any = any || !cap.type.vm_sizes.empty();
  return any ? "void *__jvp = (void *)&__jvp;\n(void)__jvp;\n" + t : "";
}

// C: the local typedefs the body names, declared again in the outlined
// function from the captured sizes (unused there when only a nested task
// names it).
std::string typedef_decls(const Construct& c) {
  std::string t;
  for (const LocalTypedef& d : c.typedefs) {
    for (std::size_t k = 0; k < d.sizes.size(); ++k) {
      const std::string v = "__jt_" + d.name + "_" + std::to_string(k);
      t += "const long " + v + " = __ja->" + v + ";\n";
    }
    t += "typedef " + subst(d.decl, d.name) + " __attribute__((unused));\n";
  }
  return t;
}

}  // namespace

// ---- C ----------------------------------------------------------------------------

std::string Generator::fields_c(const Construct& c) const {
  std::string f;
  for (const Capture& cap : c.captures) {
    if (skipped(cap)) continue;
    const CType& t = cap.type;
    const std::string& n = cap.name;
    switch (t.shape) {
      case CType::Shape::Scalar:
      case CType::Shape::Record:
        f += subst(via_pointer(cap) || scalar_reduction(cap) ? t.decl_q : t.decl,
                   via_pointer(cap) || scalar_reduction(cap) ? "(*" + n + ")" : n) +
             ";\n";
        break;
      case CType::Shape::Array:
        if (!t.variable()) {
          f += subst(t.elem, via_pointer(cap) ? "(*" + n + ")" + dims_text(cap, 0)
                                              : n + dims_text(cap, 0)) +
               ";\n";
          break;
        }
        [[fallthrough]];
      case CType::Shape::PtrToArray:
      case CType::Shape::VmPointer:
        f += "void *" + n + ";\n";
        for (std::size_t i = 0; i < t.dims.size(); ++i)
          if (t.dims[i].empty()) f += "long __jd_" + n + "_" + std::to_string(i) + ";\n";
        break;
    }
  }
  for (const LocalTypedef& t : c.typedefs)
    for (std::size_t k = 0; k < t.sizes.size(); ++k)
      f += "long __jt_" + t.name + "_" + std::to_string(k) + ";\n";
  if (c.kind == CKind::Taskloop) {
    for (std::size_t l = 0; l < c.loop.size(); ++l) {
      std::string k = std::to_string(l);
      f += "int64_t __jlo" + k + ", __jst" + k + ", __jn" + k + ";\n";
    }
    f += "int64_t __jn, __jgrain, __jcb, __jce;\njoule_task_options_t __jco;\n";
  }
  return f.empty() ? "char __jempty;\n" : f;
}

std::string Generator::capture_c(const Construct& c, const Scope& s, bool& dynamic) const {
  std::string a, size;
  dynamic = false;
  for (const Capture& cap : c.captures) {
    if (skipped(cap)) continue;
    const CType& t = cap.type;
    const std::string& n = cap.name;
    std::string acc = s.access(cap.var_id, n);
    std::string field = "__ja->" + n;
    bool ptr = via_pointer(cap) || scalar_reduction(cap);
    if (t.shape == CType::Shape::Scalar) {
      a += field + " = " + (ptr ? "&" : "") + acc + ";\n";
    } else if (t.shape == CType::Shape::Record) {
      a += ptr ? field + " = &" + acc + ";\n"
               : "__builtin_memcpy(&" + field + ", &" + acc + ", sizeof(" + field + "));\n";
    } else if (t.shape == CType::Shape::Array && !t.variable()) {
      a += ptr ? field + " = &" + acc + ";\n"
               : "__builtin_memcpy(" + field + ", " + acc + ", sizeof(" + field + "));\n";
    } else if (t.shape == CType::Shape::VmPointer) {
      a += field + " = (void *)" + acc + ";\n";
      for (std::size_t k = 0; k < t.vm_sizes.size(); ++k)
        a += "__ja->__jd_" + n + "_" + std::to_string(k) + " = " + at_object(t.vm_sizes[k], acc) +
             ";\n";
    } else {
      bool array = t.shape == CType::Shape::Array;
      if (array && !ptr) {  // a firstprivate VLA: copied behind the struct
        dynamic = true;
        size +=
            "size_t __jvo_" + n + " = __jsz; __jsz += (sizeof(" + acc + ") + 15) & ~(size_t)15;\n";
        a += field + " = (char *)__ja + __jvo_" + n + "; __builtin_memcpy(" + field + ", " + acc +
             ", sizeof(" + acc + "));\n";
      } else {
        a += field + " = (void *)" + (array ? "&" : "") + acc + ";\n";
      }
      for (std::size_t i = 0; i < t.dims.size(); ++i) {
        if (!t.dims[i].empty()) continue;
        std::size_t k = array ? i : i + 1;
        a += "__ja->__jd_" + n + "_" + std::to_string(i) + " = (long)(sizeof((" + acc + ")" +
             zeros(k) + ") / sizeof((" + acc + ")" + zeros(k + 1) + "));\n";
      }
    }
  }
  a = vm_probe(c) + a;
  if (dynamic) a = "\x01" + size + "\x02" + a;  // split by the caller
  return a;
}

std::string Generator::prologue_c(const Construct& c, bool chunk, Scope& inner) const {
  std::string p = typedef_decls(c);
  for (const Capture& cap : c.captures) {
    if (cap.loop_var) continue;
    const CType& t = cap.type;
    const std::string& n = cap.name;
    std::string acc = n;
    for (std::size_t i = 0; i < t.dims.size(); ++i)
      if (t.dims[i].empty() && cap.sharing != Sharing::Private)
        p += "const long __jd_" + n + "_" + std::to_string(i) + " = __ja->__jd_" + n + "_" +
             std::to_string(i) + ";\n";
    bool scalar = t.shape == CType::Shape::Scalar || t.shape == CType::Shape::Record;
    // A task reduction's body works on its private copy (codegen_reduction.cpp).
    const std::string ja =
        redirected(c, n) ? "joule_oss_reduction_private(__ja->" + n + ")" : "__ja->" + n;
    if (!cap.const_value.empty()) {
      p += subst(t.decl_q, n) + " = " + cap.const_value + ";\n";
    } else if (cap.sharing == Sharing::Private && !cap.reduction) {
      if (t.variable() || t.shape == CType::Shape::PtrToArray)
        p += "#error \"joulecc: private(" + n + ") of a variable-length array\"\n";
      else
        p += (scalar ? subst(t.decl, n) : subst(t.elem, n + dims_text(cap, 0))) + ";\n";
    } else if (scalar_reduction(cap)) {
      p += subst(t.decl_q, "(*const __jp_" + n + ")") + " = __ja->" + n + ";\n";
      p += subst(t.decl, n) + " = " + cap.red_identity + ";\n";
    } else if (scalar) {
      if (via_pointer(cap)) {
        p += subst(t.decl_q, "(*const __jp_" + n + ")") + " = " + ja + ";\n";
        acc = "(*__jp_" + n + ")";
      } else {
        p += subst(t.decl, n) + " = " + ja + ";\n";
      }
    } else if (array_view(cap)) {
      std::string from = ja;
      if (!t.variable() && !via_pointer(cap)) {  // firstprivate: the copy in the argument block
        from = "&__ja->" + n;
        if (chunk) {  // each taskloop chunk gets its own copy
          p += subst(t.elem, "__jl_" + n + dims_text(cap, 0)) + "; __builtin_memcpy(__jl_" + n +
               ", __ja->" + n + ", sizeof(__jl_" + n + "));\n";
          from = "&__jl_" + n;
        }
      }
      p += subst(t.elem, "(*const __jp_" + n + ")" + dims_text(cap, 0)) + " = " + from + ";\n";
      acc = "(*__jp_" + n + ")";
    } else if (t.shape == CType::Shape::VmPointer) {
      p += subst(t.decl, n) + " = " + ja + ";\n";
    } else {
      p += subst(t.elem, "(*" + n + ")" + dims_text(cap, 0)) + " = " + ja + ";\n";
    }
    inner.by_id[cap.var_id] = acc;
    if (acc != n) inner.by_name.push_back({n, acc});
  }
  return p;
}

// The creator's side of a C task's argument block: the assignments into it
// (and a (void) use of captures only the task reads, so the creator's copy
// does not warn), and for variable-sized captures the size computed first.
Generator::CreatorArgs Generator::creator_args_c(const Construct& c, const Scope& s,
                                                 const std::string& st) const {
  bool dynamic = false;
  CreatorArgs out;
  out.assign = capture_c(c, s, dynamic);
  for (const Capture& cap : c.captures)  // the task has its own: the creator's stays unused
    if (unused_at_site(cap)) out.assign += "(void)(" + s.access(cap.var_id, cap.name) + ");\n";
  out.bytes = "sizeof(" + st + ")";
  if (dynamic) {
    const std::size_t e = out.assign.find('\x02');
    out.size =
        "size_t __jsz = (sizeof(" + st + ") + 15) & ~(size_t)15;\n" + out.assign.substr(1, e - 1);
    out.assign = out.assign.substr(e + 1);
    out.bytes = "__jsz";
  }
  return out;
}

std::string Generator::task_c(Construct& c, Scope& s) {
  if (!s.pre) return "\n#error \"joulecc: a task outside a function\"\n";
  std::string id = std::to_string(c.id);
  std::string st = "struct __joule_args_" + id, fn = "__joule_task_" + id;
  *s.pre += line(c.src, c.pragma.begin);
  *s.pre += extern_decls(c) + st + " {\n" + fields_c(c) + "};\nstatic void " + fn + "(void *);\n";
  const CreatorArgs args = creator_args_c(c, s, st);
  std::string site = "{" + line(c.src, c.pragma.begin) + extern_uses(c) + options(c, s) +
                     deps(c, c.deps, s) + device(c) + args.size + "joule_task_t *__jt;\n" + st +
                     " *__ja = (" + st + " *)joule_oss_task_create(" + fn + ", " + args.bytes +
                     ", &__jo, &__jt);\n" + args.assign +
                     "(void)__ja;\njoule_oss_task_submit(__jt, &__jd);\n}" + sync(c.end);
  Scope inner;
  inner.pre = s.pre;
  inner.post = s.post;
  std::string pro = prologue_c(c, false, inner), defs, undefs;
  for (const std::string& n : c.macro_shared) {
    defs += "#define " + n + " (*__jp_" + n + ")\n";
    undefs += "#undef " + n + "\n";
  }
  std::string b = body(c, inner);
  *s.post += line(c.src, c.pragma.begin) + "static void " + fn + "(void *__jv)\n{\n" + st +
             " *__ja = (" + st + " *)__jv;\n" + pro + "(void)__ja;\n" + defs + "{" + b + "}\n" +
             undefs + "}\n";
  return site;
}

// ---- C++ --------------------------------------------------------------------------

std::string Generator::capture_list_cxx(const Construct& c, bool inner) const {
  std::string l = "=";
  for (const Capture& cap : c.captures) {
    if (cap.loop_var || cap.static_storage || cap.sharing != Sharing::Shared) continue;
    if (cap.global && !(scalar_reduction(cap) && inner)) continue;  // named, not captured
    if (scalar_reduction(cap) && inner)
      l += ", &__jr_" + cap.name + " = " + cap.name;
    else
      l += ", &" + cap.name;
  }
  if (c.uses_this && m_.cxx20) l += ", this";
  return l;
}

std::string Generator::task_cxx(Construct& c, Scope& s) {
  std::string priv;
  for (const Capture& cap : c.captures)
    if (cap.sharing == Sharing::Private)
      priv += "typename std::remove_cv<typename std::remove_reference<decltype(" + cap.name +
              ")>::type>::type " + cap.name + ";\n";
  return "{" + line(c.src, c.pragma.begin) + options(c, s) + deps(c, c.deps, s) + device(c) +
         "::joule_oss::spawn(&__jd, &__jo, [" + capture_list_cxx(c, false) + "]() mutable {\n" +
         priv + redirect_cxx(c) + body(c, s) + "});\n}" + sync(c.end);
}

}  // namespace joulecc
