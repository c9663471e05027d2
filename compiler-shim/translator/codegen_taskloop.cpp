// Taskloops: the chunks of the loop nest as C outlined functions or C++
// lambdas, with their reductions combined.
#include "codegen.hpp"
#include "codegen_capture.hpp"

namespace joulecc {
namespace {

std::string combine(const std::string& a, const std::string& b, const std::string& op) {
  if (op == "max") return "(" + a + " > " + b + " ? " + a + " : " + b + ")";
  if (op == "min") return "(" + a + " < " + b + " ? " + a + " : " + b + ")";
  return "(" + a + " " + (op == "-" ? std::string("+") : op) + " " + b + ")";
}

bool omp_sync_loop(const Construct& c) {
  return c.dir.prefix == Prefix::Omp && c.dir.find("nogroup") == nullptr;
}

}  // namespace

// ---- C ----------------------------------------------------------------------------

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

}  // namespace joulecc
