// Tasks, taskloops and task functions: C outlining and C++ lambdas.
#include "codegen.hpp"

namespace joulecc {
namespace {

// Puts inner where the declarator's '@' is.
std::string subst(const std::string& decl, const std::string& inner) {
  std::size_t at = decl.find('@');
  if (at == std::string::npos) return decl + " " + inner;
  return decl.substr(0, at) + inner + decl.substr(at + 1);
}

std::string zeros(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += "[0]";
  return s;
}

// Scalars and records that are shared (or static locals) are reached through
// a pointer; so are arrays (the whole array, so that sizeof and &a keep their
// meaning), shared or firstprivate.
// A taskloop reduction on a scalar: each chunk's copy is a local.
bool scalar_reduction(const Capture& c) { return c.reduction && !c.red_elems; }
bool via_pointer(const Capture& c) {
  return (c.sharing == Sharing::Shared || c.static_storage) && !scalar_reduction(c) &&
         c.type.shape != CType::Shape::PtrToArray && c.type.shape != CType::Shape::VmPointer;
}
bool array_view(const Capture& c) {
  return c.type.shape == CType::Shape::Array && !scalar_reduction(c) &&
         c.sharing != Sharing::Private;
}

bool skipped(const Capture& c) {
  return c.loop_var || (c.sharing == Sharing::Private && !c.reduction) || !c.const_value.empty();
}

// The task declares its own: the creator's variable stays unused there.
bool unused_at_site(const Capture& c) {
  return (c.sharing == Sharing::Private && !c.reduction) || !c.const_value.empty();
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

std::string combine(const std::string& a, const std::string& b, const std::string& op) {
  if (op == "max") return "(" + a + " > " + b + " ? " + a + " : " + b + ")";
  if (op == "min") return "(" + a + " < " + b + " ? " + a + " : " + b + ")";
  return "(" + a + " " + (op == "-" ? std::string("+") : op) + " " + b + ")";
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

// C: the block-scope extern declarations the outlined code uses, repeated
// at file scope before it (C11 6.2.1p4: a block-scope declaration is not
// visible outside its block); at the site, a use of each variable, which
// the creator may no longer name.
std::string extern_decls(const Construct& c) {
  std::string t;
  for (const std::string& d : c.block_externs) t += d + ";\n";
  return t;
}
std::string extern_uses(const Construct& c) {
  std::string t;
  for (const std::string& n : c.extern_vars) t += "(void)" + n + ";\n";
  return t;
}

bool omp_sync_loop(const Construct& c) {
  return c.dir.prefix == Prefix::Omp && c.dir.find("nogroup") == nullptr;
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

std::string Generator::loop_levels_c(const Construct& c, const Scope& s) const {
  std::string t;
  static const char* ops[] = {"0", "1", "2", "3", "4"};
  for (std::size_t l = 0; l < c.loop.size(); ++l) {
    const LoopLevel& lv = c.loop[l];
    std::string k = std::to_string(l);
    t += "__ja->__jlo" + k + " = (int64_t)" + source(lv.lo_off, lv.lo, s) + ";\n";
    t += "__ja->__jst" + k + " = (int64_t)" + source(lv.step_off, lv.step, s) + ";\n";
    t += "__ja->__jn" + k + " = joule_oss_trip_count(__ja->__jlo" + k + ", (int64_t)" +
         source(lv.hi_off, lv.hi, s) + ", __ja->__jst" + k + ", " + ops[lv.op] + ");\n";
  }
  for (const LoopLevel& lv :
       c.loop)  // a variable declared before the loop is not used by it any more
    if (!lv.declared_in_init) t += "(void)" + s.access_name(lv.var) + ";\n";
  t += "__ja->__jn = 1";
  for (std::size_t l = 0; l < c.loop.size(); ++l) t += " * __ja->__jn" + std::to_string(l);
  t += ";\n";
  if (const Clause* g = c.dir.find("grainsize"))
    t += "__ja->__jgrain = (int64_t)(" + user(c, g->args[0], s) + ");\n";
  else if (const Clause* n = c.dir.find("num_tasks"))
    t += "__ja->__jgrain = joule_oss_grain_for_tasks(__ja->__jn, (int64_t)(" +
         user(c, n->args[0], s) + "));\n";
  else
    t += "__ja->__jgrain = 0;\n";
  return t;
}

// Declares the loop variables of iteration __jk (collapsed levels unrolled).
std::string Generator::loop_indices(const Construct& c, bool cxx) const {
  std::string t = "int64_t __jr = __jk;\n";
  for (std::size_t l = c.loop.size(); l-- > 0;) {
    const LoopLevel& lv = c.loop[l];
    std::string k = std::to_string(l);
    std::string pre = cxx ? "__j" : "__ja->__j";
    t += subst(lv.var_decl, lv.var) + " = (" + subst(lv.var_decl, "") + ")(" + pre + "lo" + k +
         " + (__jr % " + pre + "n" + k + ") * " + pre + "st" + k + ");\n__jr /= " + pre + "n" + k +
         ";\n";
  }
  return t + "(void)__jr;\n";
}

// A taskloop whose dependencies use the loop variable creates its chunks
// here, as sibling tasks each with its own dependencies (loop_deps.cpp);
// the argument block, filled once, is copied into each.
std::string Generator::taskloop_site_c(Construct& c, Scope& s, const std::string& st,
                                       const std::string& entry) {
  bool dynamic = false;
  std::string assign = capture_c(c, s, dynamic);
  if (dynamic)
    return line(c.src, c.pragma.begin) +
           "#error \"joulecc: a taskloop with dependencies on its loop variable cannot copy a "
           "variable-length array into its chunks\"\n" +
           sync(c.end);
  for (const Capture& cap : c.captures)
    if (unused_at_site(cap)) assign += "(void)(" + s.access(cap.var_id, cap.name) + ");\n";
  return "{" + line(c.src, c.pragma.begin) + extern_uses(c) + options(c, s) + st + " __jat; " + st +
         " *__ja = &__jat;\n" + assign + loop_levels_c(c, s) + "__jat.__jco = __jo;\n" +
         chunk_loop(c, s, "__jat.__jn", "__jat.__jgrain") + chunk_bounds(c, "__jat.__j") +
         chunk_deps(c, s) + device(c) + "joule_task_t *__jt;\n" + st + " *__jc = (" + st +
         " *)joule_oss_task_create(" + entry + ", sizeof(" + st + "), &__jo, &__jt);\n" +
         "__builtin_memcpy(__jc, &__jat, sizeof(" + st +
         "));\n__jc->__jcb = __jcb; __jc->__jce = __jce;\njoule_oss_task_submit(__jt, "
         "&__jd);\n}\n" +
         (omp_sync_loop(c) ? "joule_oss_taskwait();\n" : "") + "}" + sync(c.end);
}

std::string Generator::taskloop_c(Construct& c, Scope& s) {
  if (!s.pre) return "\n#error \"joulecc: a taskloop outside a function\"\n";
  std::string id = std::to_string(c.id);
  std::string st = "struct __joule_args_" + id, wrap = "__joule_tlwrap_" + id,
              chunk = "__joule_tlchunk_" + id;
  *s.pre += line(c.src, c.pragma.begin) + extern_decls(c) + st + " {\n" + fields_c(c) +
            "};\nstatic void " + wrap + "(void *);\nstatic void " + chunk +
            "(void *, int64_t, int64_t);\n";
  std::string site;
  if (c.loop_deps) {
    site = taskloop_site_c(c, s, st, wrap);
  } else {
    const CreatorArgs args = creator_args_c(c, s, st);
    site = "{" + line(c.src, c.pragma.begin) + extern_uses(c) + options(c, s) +
           (omp_sync_loop(c) ? "__jo.if_ = 0;\n" : "") + deps(c, c.deps, s) + device(c) +
           args.size + "joule_task_t *__jt;\n" + st + " *__ja = (" + st +
           " *)joule_oss_task_create(" + wrap + ", " + args.bytes + ", &__jo, &__jt);\n" +
           args.assign + loop_levels_c(c, s) + line(c.src, c.pragma.begin) +
           "__ja->__jco = __jo; __ja->__jco.if_ = 1;\njoule_oss_task_submit(__jt, &__jd);\n}" +
           sync(c.end);
  }
  Scope inner;
  inner.pre = s.pre;
  inner.post = s.post;
  std::string pro = prologue_c(c, true, inner), defs, undefs, comb;
  for (const std::string& n : c.macro_shared) {
    defs += "#define " + n + " (*__jp_" + n + ")\n";
    undefs += "#undef " + n + "\n";
  }
  for (const Capture& cap : c.captures) {
    if (cap.red_elems) {
      const std::string at = inner.access(cap.var_id, cap.name);
      pro += reduction_open(c, cap, inner, at);
      inner.by_id[cap.var_id] = "__jrv_" + cap.name;
      inner.by_name.push_back({cap.name, "__jrv_" + cap.name});
      comb += reduction_close(c, cap, "");
    }
    if (!scalar_reduction(cap)) continue;
    std::string p = "__jp_" + cap.name;
    comb += "joule_oss_lock_address(" + p + "); *" + p + " = " +
            combine("*" + p, cap.name, cap.red_op) + "; joule_oss_unlock_address(" + p + ");\n";
  }
  std::string b = body(c, inner);
  // The wrapper runs the chunks, or (per-chunk dependencies) is one chunk.
  std::string run = c.loop_deps ? chunk + "(__jv, __ja->__jcb, __ja->__jce);\n"
                                : "joule_oss_taskloop(" + chunk +
                                      ", __jv, __ja->__jn, __ja->__jgrain, &__ja->__jco);\n";
  const ChunkParams cp = chunk_params(c, pro);
  const std::string fn = "__joule_tlbody_" + id;
  *s.post += line(c.src, c.pragma.begin) + "__attribute__((__noinline__)) static void " + fn +
             "(void *__jv, int64_t __jb, int64_t __je" + cp.decls + ")\n{\n" + st + " *__ja = (" +
             st + " *)__jv;\n" + cp.prologue + "(void)__ja;\n" + defs +
             "for (int64_t __jk = __jb; __jk < __je; ++__jk) {\n" + loop_indices(c, true) + "{" +
             b + "}\n}\n" + comb + undefs + "}\nstatic void " + chunk +
             "(void *__jv, int64_t __jb, int64_t __je)\n{\n" + st + " *__ja = (" + st +
             " *)__jv;\n" + fn + "(__jv, __jb, __je" + cp.args + ");\n}\nstatic void " + wrap +
             "(void *__jv)\n{\n" + st + " *__ja = (" + st + " *)__jv;\n" + run + "}\n";
  return site;
}

// A chunk's loop runs in a function of its own whose parameters are the
// loop's bounds and the firstprivate scalars (pointers above all): as
// parameters they keep their restrict qualifiers, which GCC and Clang honour
// on parameters only (C11 6.7.3.1; LLVM's noalias), and no store in the loop
// can alias them, so the inner loops vectorise as in the sequential build
// (docs/performance.md, "Taskloop chunks"). Their prologue lines go.
Generator::ChunkParams Generator::chunk_params(const Construct& c, const std::string& pro) const {
  ChunkParams p;
  p.prologue = pro;
  for (std::size_t l = 0; l < c.loop.size(); ++l)
    for (const char* f : {"__jlo", "__jst", "__jn"}) {
      const std::string v = f + std::to_string(l);
      p.decls += ", int64_t " + v;
      p.args += ", __ja->" + v;
    }
  for (const Capture& cap : c.captures) {
    if (skipped(cap) || cap.type.shape != CType::Shape::Scalar || via_pointer(cap) ||
        scalar_reduction(cap) || redirected(c, cap.name))
      continue;
    const std::string decl = subst(cap.type.decl, cap.name);
    const std::string local = decl + " = __ja->" + cap.name + ";\n";
    const std::size_t at = p.prologue.find(local);
    if (at == std::string::npos || (at > 0 && p.prologue[at - 1] != '\n')) continue;
    p.prologue.erase(at, local.size());
    p.decls += ", " + decl;
    p.args += ", __ja->" + cap.name;
  }
  return p;
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

std::string Generator::loop_levels_cxx(const Construct& c, const Scope& s) const {
  std::string t;
  static const char* ops[] = {"0", "1", "2", "3", "4"};
  std::string total = "const int64_t __jn = 1";
  for (std::size_t l = 0; l < c.loop.size(); ++l) {
    const LoopLevel& lv = c.loop[l];
    std::string k = std::to_string(l);
    t += "const int64_t __jlo" + k + " = (int64_t)" + source(lv.lo_off, lv.lo, s) + ";\n";
    t += "const int64_t __jst" + k + " = (int64_t)" + source(lv.step_off, lv.step, s) + ";\n";
    t += "const int64_t __jn" + k + " = joule_oss_trip_count(__jlo" + k + ", (int64_t)" +
         source(lv.hi_off, lv.hi, s) + ", __jst" + k + ", " + ops[lv.op] + ");\n";
    total += " * __jn" + k;
  }
  t += total + ";\n";
  for (const LoopLevel& lv : c.loop)
    if (!lv.declared_in_init) t += "(void)" + lv.var + ";\n";
  if (const Clause* g = c.dir.find("grainsize"))
    t += "const int64_t __jg = (int64_t)(" + user(c, g->args[0], s) + ");\n";
  else if (const Clause* n = c.dir.find("num_tasks"))
    t += "const int64_t __jg = joule_oss_grain_for_tasks(__jn, (int64_t)(" +
         user(c, n->args[0], s) + "));\n";
  else
    t += "const int64_t __jg = 0;\n";
  return t;
}

std::string Generator::taskloop_cxx(Construct& c, Scope& s) {
  std::string priv, comb;
  for (const Capture& cap : c.captures) {
    if (cap.sharing == Sharing::Private && !cap.reduction)
      priv += "typename std::remove_cv<typename std::remove_reference<decltype(" + cap.name +
              ")>::type>::type " + cap.name + ";\n";
    if (cap.red_elems) {  // the copy shadows the pointer (or array) in the body
      priv += reduction_open(c, cap, s, cap.name) +
              "\n#pragma GCC diagnostic push\n#pragma GCC "
              "diagnostic ignored \"-Wshadow\"\nauto *const " +
              cap.name + " = __jrv_" + cap.name + ";\n#pragma GCC diagnostic pop\n";
      comb += reduction_close(c, cap, "::");
    }
    if (!scalar_reduction(cap)) continue;
    std::string r = "__jr_" + cap.name;
    priv += "typename std::remove_reference<decltype(" + r + ")>::type " + cap.name + " = " +
            cap.red_identity + ";\n";
    comb += "::joule_oss_lock_address(&" + r + "); " + r + " = " +
            combine(r, cap.name, cap.red_op) + "; ::joule_oss_unlock_address(&" + r + ");\n";
  }
  if (c.loop_deps)  // each chunk a task with its own dependencies (loop_deps.cpp)
    return "{" + line(c.src, c.pragma.begin) + options(c, s) + loop_levels_cxx(c, s) +
           "int64_t __jgc = __jg;\n" + chunk_loop(c, s, "__jn", "__jgc") + chunk_bounds(c, "__j") +
           chunk_deps(c, s) + device(c) + "::joule_oss::spawn(&__jd, &__jo, [" +
           capture_list_cxx(c, true) + "]() mutable {\n" +
           chunk_call_cxx(c, "__jcb", "__jce",
                          priv + "for (int64_t __jk = __jcb; __jk < __jce; ++__jk) {\n" +
                              loop_indices(c, true) + body(c, s) + "}\n" + comb) +
           "});\n}\n" + (omp_sync_loop(c) ? "::joule_oss_taskwait();\n" : "") + "}" + sync(c.end);
  return "{" + line(c.src, c.pragma.begin) + options(c, s) +
         (omp_sync_loop(c) ? "__jo.if_ = 0;\n" : "") + deps(c, c.deps, s) + device(c) +
         loop_levels_cxx(c, s) + line(c.src, c.pragma.begin) +
         "joule_task_options_t __jco = __jo; __jco.if_ = 1;\n::joule_oss::spawn(&__jd, &__jo, [" +
         capture_list_cxx(c, false) + "]() mutable {\n::joule_oss::taskloop(__jn, __jg, &__jco, [" +
         capture_list_cxx(c, true) + "](int64_t __jb, int64_t __je) mutable {\n" +
         chunk_call_cxx(c, "__jb", "__je",
                        priv + "for (int64_t __jk = __jb; __jk < __je; ++__jk) {\n" +
                            loop_indices(c, true) + body(c, s) + "}\n" + comb) +
         "});\n});\n}" + sync(c.end);
}

// The C++ form of chunk_params: the chunk's loop runs in a lambda called at
// once, whose parameters (shadowing the closure's copies) are the bounds and
// the firstprivate non-const scalars, declared with decltype so that
// __restrict__ stays; not inlined, so that they stay parameters.
std::string Generator::chunk_call_cxx(const Construct& c, const std::string& b,
                                      const std::string& e, const std::string& loop) const {
  std::string params = "int64_t " + b + ", int64_t " + e, args = b + ", " + e;
  for (std::size_t l = 0; l < c.loop.size(); ++l)
    for (const char* f : {"__jlo", "__jst", "__jn"}) {
      const std::string v = f + std::to_string(l);
      params += ", int64_t " + v;
      args += ", " + v;
    }
  for (const Capture& cap : c.captures) {
    if (!cap.scalar || cap.sharing != Sharing::FirstPrivate || cap.loop_var || cap.reduction ||
        cap.static_storage || redirected(c, cap.name))
      continue;
    params += ", decltype(" + cap.name + ") " + cap.name;
    args += ", " + cap.name;
  }
  return "\n#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wshadow\"\n[&](" +
         params + ") __attribute__((__noinline__)) {\n" + loop + "}(" + args +
         ");\n#pragma GCC diagnostic pop\n";
}

// ---- task functions -----------------------------------------------------------

// The wrapper's declaration alone, ahead of calls in a translated header
// (its definition follows the including file's #include). Without default
// arguments: C++ allows them once, and the full declaration has them.
std::string Generator::wrapper_declaration(const FunctionTask& f, const Construct& c) {
  if (m_.lang != Lang::Cxx)
    return "\n__attribute__((unused)) static void " + f.wrapper + "(" + f.params_def + ");" +
           sync(c.begin);
  std::string open, close;
  if (c.outside)
    for (const std::string& ns : f.namespaces) {
      open += "namespace " + ns + " { ";
      close += "}";
    }
  return "\n" + open + "inline void " + f.wrapper + "(" + f.params_def + ");" + close +
         sync(c.begin);
}

std::string Generator::function_insert(Construct& c) {
  const FunctionTask& f = m_.functions[c.function];
  if (c.prototype_only) return wrapper_declaration(f, c);
  const Construct& t = m_.constructs[f.construct];
  bool cxx = m_.lang == Lang::Cxx;
  std::string id = std::to_string(f.id), st = "struct __joule_fargs_" + id,
              run = "__joule_frun_" + id;
  std::string open, close;
  if (cxx && c.outside)
    for (const std::string& ns : f.namespaces) {
      open += "namespace " + ns + " {\n";
      close += "}\n";
    }
  std::string out = line(t.src, t.pragma.begin) + open;
  Scope none;
  if (!c.insert_definition) {
    if (!cxx) {
      out += st + " {\n";
      for (std::size_t i = 0; i < f.param_names.size(); ++i) {
        const CType& ty = f.param_types[i];
        bool vm = ty.shape == CType::Shape::PtrToArray || ty.shape == CType::Shape::VmPointer;
        out += vm ? "void *" + f.param_names[i] + ";\n" : subst(ty.decl, f.param_names[i]) + ";\n";
      }
      if (f.param_names.empty()) out += "char __jempty;\n";
      // A header's task function this file never calls: no -Wunused-function.
      out += "};\n__attribute__((unused)) static void " + f.wrapper + "(" + f.params_proto + ");\n";
    } else {
      out += "inline void " + f.wrapper + "(" + f.params_proto + ");\n";
    }
    return out + close + sync(c.begin);
  }
  std::string args, caps;
  for (std::size_t i = 0; i < f.param_names.size(); ++i) {
    const std::string& n = f.param_names[i];
    std::string sep = i ? ", " : "";
    if (!cxx)
      args += sep + "__ja->" + n;
    else if (f.param_is_ref[i]) {
      args += sep + n;
      caps += sep + "&" + n;
    } else {
      args += sep + "static_cast<decltype(" + n + ")&&>(" + n + ")";
      caps += sep + n + " = static_cast<decltype(" + n + ")&&>(" + n + ")";
    }
  }
  std::string head = options(t, none) + deps(t, t.deps, none) + device(t);
  if (on_card(t))
    return out + (cxx ? card_function_cxx(f, t, head) : card_function_c(f, t, head)) + close +
           sync(c.begin);
  if (offload_device(t) == "cuda")
    return out + (cxx ? cuda_function_cxx(f, t, head) : cuda_function_c(f, t, head)) + close +
           sync(c.begin);
  if (cxx) {
    out += "inline void " + f.wrapper + "(" + f.params_def + ")\n{\n" + head +
           "::joule_oss::spawn(&__jd, &__jo, [" + caps + "]() mutable { " +
           redirect_function(t, f) + f.name + "(" + args + "); });\n}\n";
    return out + close + sync(c.begin);
  }
  out += "static void " + run + "(void *__jv)\n{\n" + st + " *__ja = (" + st +
         " *)__jv;\n(void)__ja;\n" + redirect_function(t, f) + f.name + "(" + args +
         ");\n}\n__attribute__((unused)) static void " + f.wrapper + "(" + f.params_def + ")\n{\n" +
         head + "joule_task_t *__jt;\n" + st + " *__ja = (" + st + " *)joule_oss_task_create(" +
         run + ", sizeof(" + st + "), &__jo, &__jt);\n";
  for (std::size_t i = 0; i < f.param_names.size(); ++i) {
    const std::string& n = f.param_names[i];
    const CType& ty = f.param_types[i];
    if (ty.shape == CType::Shape::Record)
      out += "__builtin_memcpy(&__ja->" + n + ", &" + n + ", sizeof(__ja->" + n + "));\n";
    else if (ty.shape == CType::Shape::PtrToArray || ty.shape == CType::Shape::VmPointer)
      out += "__ja->" + n + " = (void *)" + n + ";\n";
    else
      out += "__ja->" + n + " = " + n + ";\n";
  }
  return out + "joule_oss_task_submit(__jt, &__jd);\n}\n" + sync(c.begin);
}

}  // namespace joulecc
