// Task reductions (reduction, weakreduction, in_reduction on a task): the
// dependency carries a built-in operator, so the tasks reducing one variable
// run concurrently, and the body of a (non-weak) reducing task reaches the
// variable through the private copy joule gives it. Taskloop reductions
// keep their own path (a private copy per chunk, codegen_tasks.cpp), and a
// reduction joulecc cannot type (a member, a record) stays an in-place
// update, one task at a time (commutative).
#include "codegen.hpp"

namespace joulecc {
namespace {

const char* red_kind(const std::string& op) {
  if (op == "*") return "JOULE_RED_PROD";
  if (op == "&") return "JOULE_RED_BAND";
  if (op == "|") return "JOULE_RED_BOR";
  if (op == "^") return "JOULE_RED_BXOR";
  if (op == "&&") return "JOULE_RED_LAND";
  if (op == "||") return "JOULE_RED_LOR";
  if (op == "max") return "JOULE_RED_MAX";
  if (op == "min") return "JOULE_RED_MIN";
  return "JOULE_RED_SUM";  // + and -: the partial results are summed
}

bool elementwise(const RegionRef& r) {
  return !r.region.shape.empty() || !r.region.sections.empty() || !r.array_param.empty();
}

// A bitwise operator on a floating type has no built-in reduction (the
// compiler rejects the body anyway).
bool operator_fits(const RegionRef& r) {
  bool bitwise = r.red_op == "&" || r.red_op == "|" || r.red_op == "^";
  bool floating = r.red_type == "JOULE_TYPE_FLOAT" || r.red_type == "JOULE_TYPE_DOUBLE" ||
                  r.red_type == "JOULE_TYPE_LDOUBLE";
  return !(bitwise && floating);
}

int param_index(const FunctionTask& f, const std::string& name) {
  for (std::size_t i = 0; i < f.param_names.size(); ++i)
    if (f.param_names[i] == name) return static_cast<int>(i);
  return -1;
}

// The copy takes the variable's name in the body: a deliberate shadow,
// which -Wshadow need not report in generated code.
std::string shadowing(const std::string& decl) {
  return "\n#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wshadow\"\n" + decl +
         "\n#pragma GCC diagnostic pop\n";
}

}  // namespace

bool Generator::task_reduction(const Construct& c, const RegionRef& r) const {
  if (r.kind != "reduction" || r.red_type.empty() || c.kind != CKind::Task) return false;
  if (!r.region.base_is_name || !operator_fits(r)) return false;
  if (!c.function_task) return true;
  // A task function reaches the data through a parameter: a pointer the
  // wrapper can point at the copy, or (C++) a reference it can rebind.
  const FunctionTask& f = m_.functions[c.function];
  int i = param_index(f, r.region.base_name);
  if (i < 0) return false;
  if (elementwise(r)) return true;
  return m_.lang == Lang::Cxx && f.param_is_ref[std::size_t(i)];
}

// A taskloop's dependency on the data it reduces names the operator, as a
// task reduction's does: taskloops (and tasks) reducing the same region with
// the same operator stay concurrent, one with another operator is ordered
// after them. Its chunks combine their own copies (joule makes none for it).
bool Generator::loop_reduction(const Construct& c, const RegionRef& r) const {
  if (c.kind != CKind::Taskloop || r.kind != "reduction" || r.red_type.empty()) return false;
  return r.region.base_is_name && operator_fits(r);
}

// The body of c uses a private copy of `name` (not for weak reductions:
// that task's children reduce, the task itself does not touch the data).
bool Generator::redirected(const Construct& c, const std::string& name) const {
  for (const RegionRef& r : c.deps)
    if (!r.weak && r.region.base_name == name && task_reduction(c, r)) return true;
  return false;
}

// The runs of the region, then one reduction over them that starts at the
// variable (or the first element its pointer points to): the body finds its
// copy from that address.
std::string Generator::reduction_region(const Construct& c, const RegionRef& r, const Scope& s,
                                        const std::string& runs) {
  (void)c;
  std::string base = inline_text(r.region.base, s);
  std::string at = elementwise(r) ? "(const void *)&" + base + "[0]" : "(const void *)&" + base;
  return "{ size_t __jrf = __jd.n;\n" + runs + "joule_oss_dep_reduction(&__jd, __jrf, " + at +
         ", " + red_kind(r.red_op) + ", " + r.red_type + "); }\n";
}

// C++ task bodies: the reduced variables, by reference, and the reduced
// pointers, by value, are shadowed by their private counterparts.
std::string Generator::redirect_cxx(const Construct& c) const {
  std::string out;
  for (const Capture& cap : c.captures) {
    if (cap.loop_var || !redirected(c, cap.name)) continue;
    const std::string& n = cap.name;
    if (cap.sharing == Sharing::Shared || cap.static_storage)
      out += "auto *const __jrp_" + n + " = ::joule_oss::reduction_private(&" + n + ");" +
             shadowing("auto &" + n + " = *__jrp_" + n + ";");
    else
      out += "auto *const __jrp_" + n + " = ::joule_oss::reduction_private(&" + n + "[0]);" +
             shadowing("auto " + n + " = __jrp_" + n + ";");
  }
  return out;
}

// Task functions: the wrapper passes the copy in place of the data.
std::string Generator::redirect_function(const Construct& t, const FunctionTask& f) const {
  std::string out;
  bool cxx = m_.lang == Lang::Cxx;
  for (const RegionRef& r : t.deps) {
    if (r.weak || !task_reduction(t, r)) continue;
    const std::string& n = r.region.base_name;
    if (out.find("__jrp_" + n + " ") != std::string::npos) continue;  // named twice
    int i = param_index(f, n);
    if (!cxx)
      out += "void *__jrp_" + n + " = joule_oss_reduction_private(__ja->" + n + "); __ja->" + n +
             " = __jrp_" + n + ";\n";
    else if (f.param_is_ref[std::size_t(i)])
      out += "auto *const __jrp_" + n + " = ::joule_oss::reduction_private(&" + n + ");" +
             shadowing("auto &" + n + " = *__jrp_" + n + ";");
    else
      out += "auto *const __jrp_" + n + " = ::joule_oss::reduction_private(&" + n + "[0]); " + n +
             " = __jrp_" + n + ";\n";
  }
  return out;
}

}  // namespace joulecc

namespace joulecc {

// A taskloop reduction on a section or a shaped pointer (OmpSs-2
// specification, "reduction clause": array sections are reduced element by
// element), of any number of dimensions: the chunk reduces into a
// zeroed-to-identity copy of the bytes the region spans, reached as
// __jrv_<name> (the copy moved back by the region's offset and typed as the
// data, a pointer to rows for a 2-D array, so the body's subscripts stay as
// written); the region's runs (__jrr_<name>) say which elements to fold.
// `at` names the data where this code runs.
std::string Generator::reduction_open(const Construct& c, const Capture& cap, const Scope& s,
                                      const std::string& at) {
  const RegionRef* r = nullptr;
  for (const RegionRef& d : c.deps)
    if (d.kind == "reduction" && d.region.base_name == cap.name) r = &d;
  if (!r) return "";
  const std::string n = cap.name, e = "__jte_" + n, runs = "__jrr_" + n;
  // Generated lines carry the pragma's line (#line), each on one line.
  const std::string at_pragma = line(c.src, c.pragma.begin);
  std::string t = at_pragma + "typedef __typeof__((" + at + ")[0]";
  for (int k = 0; k < cap.red_rank; ++k) t += "[0]";
  t += ") " + e + "; typedef __typeof__(&(" + at + ")[0]) __jtv_" + n + "; ";
  t += "char *const __jrz_" + n + " = (char *)&(" + at + ")[0]; char *__jrl_" + n +
       " = 0, *__jrh_" + n + " = 0; joule_dep_t *" + runs + "; size_t __jrk_" + n + ";\n";
  t += "{ joule_oss_deps_t __jd; joule_oss_deps_init(&__jd);\n" + region_runs(c, *r, s) +
       at_pragma + "__jrk_" + n + " = __jd.n; " + runs +
       " = (joule_dep_t *)__builtin_malloc(__jd.n * sizeof(joule_dep_t) + 1); "
       "for (size_t __jq = 0; __jq < __jd.n; ++__jq) { " +
       runs +
       "[__jq] = __jd.deps[__jq]; char *__ja0 = (char *)__jd.deps[__jq].addr; "
       "char *__ja1 = __ja0 + __jd.deps[__jq].bytes; if (!__jrl_" +
       n + " || __ja0 < __jrl_" + n + ") __jrl_" + n + " = __ja0; if (__ja1 > __jrh_" + n +
       ") __jrh_" + n + " = __ja1; } joule_oss_deps_free(&__jd); } ";
  t += "const size_t __jrn_" + n + " = (size_t)(__jrh_" + n + " - __jrl_" + n + ") / sizeof(" + e +
       "); " + e + " *const __jrb_" + n + " = (" + e + " *)__builtin_malloc(__jrn_" + n +
       " * sizeof(" + e + ") + 1); for (size_t __jq = 0; __jq < __jrn_" + n + "; ++__jq) __jrb_" +
       n + "[__jq] = " + cap.red_identity + "; ";
  return t + "__jtv_" + n + " const __jrv_" + n + " = (__jtv_" + n + ")((char *)__jrb_" + n +
         " - (__jrl_" + n + " - __jrz_" + n + "));\n";
}

// Folds the chunk's copy into the data, run by run (the elements a
// multi-dimensional section skips keep their values: another task may own
// them), under the lock of the data's first element.
std::string Generator::reduction_close(const Construct& c, const Capture& cap,
                                       const std::string& ns) const {
  const std::string n = cap.name, e = "__jte_" + n, d = "__jd0[__jw]", p = "__jp0[__jw]";
  std::string op = cap.red_op == "-" ? "+" : cap.red_op;
  std::string v = op == "max"   ? "(" + d + " > " + p + " ? " + d + " : " + p + ")"
                  : op == "min" ? "(" + d + " < " + p + " ? " + d + " : " + p + ")"
                                : "(" + d + " " + op + " " + p + ")";
  return line(c.src, c.pragma.begin) + ns + "joule_oss_lock_address(__jrz_" + n +
         "); for (size_t __jq = 0; __jq < __jrk_" + n + "; ++__jq) { " + e + " *const __jd0 = (" +
         e + " *)__jrr_" + n + "[__jq].addr; const " + e + " *const __jp0 = __jrb_" + n +
         " + ((char *)__jd0 - __jrl_" + n + ") / sizeof(" + e +
         "); for (size_t __jw = 0; __jw < __jrr_" + n + "[__jq].bytes / sizeof(" + e +
         "); ++__jw) " + d + " = " + v + "; } " + ns + "joule_oss_unlock_address(__jrz_" + n +
         "); __builtin_free(__jrb_" + n + "); __builtin_free(__jrr_" + n + ");\n";
}

}  // namespace joulecc
