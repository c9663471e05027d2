// `#pragma omp atomic` without OpenMP in the compiler: __atomic builtins on
// the location, the operand evaluated first and outside the atomic step (so
// `x += f()` where f itself runs an atomic cannot deadlock). Types that are
// not lock-free (long double, structs, complex) take joule's atomic lock
// around the read-modify-write only.
#include "codegen.hpp"

namespace joulecc {
namespace {

const char* const kSeq = "__ATOMIC_SEQ_CST";

std::string fetch_name(const std::string& op) {
  if (op == "+") return "add";
  if (op == "-") return "sub";
  if (op == "&") return "and";
  if (op == "|") return "or";
  return "xor";
}

// The location's type without qualifiers, for the local copies the builtins
// read and write (a comma expression drops them in C; C++ has remove_cv).
std::string value_type(bool cxx) {
  return cxx ? "::std::remove_cv<__typeof__(*__jap)>::type" : "__typeof__((void)0, *__jap)";
}

}  // namespace

// The main-file range [b, e) with the renames and calls inside it applied.
std::string Generator::atomic_part(Construct& c, unsigned b, unsigned e, Scope& s) {
  std::vector<Construct*> kids;
  for (Construct* k : c.children)
    if (k->begin >= b && k->end <= e) kids.push_back(k);
  return "(" + render_range(b, e, kids, s) + ")";
}

// The read-modify-write of *__jap with the operand in __jav; v (if any)
// receives the old or new value.
std::string Generator::atomic_update(const AtomicPlan& p, const std::string& v) {
  bool cxx = m_.lang == Lang::Cxx;
  std::string operand = p.e_b == p.e_e ? "1" : "__jav";
  if (p.fetch) {
    std::string f = p.capture_old || v.empty() ? "__atomic_fetch_" + fetch_name(p.op)
                                               : "__atomic_" + fetch_name(p.op) + "_fetch";
    return (v.empty() ? "" : v + " = ") + f + "(__jap, " + operand + ", " + kSeq + ");";
  }
  std::string next =
      p.expr_left ? operand + " " + p.op + " __jao" : "__jao " + p.op + " " + operand;
  std::string out = value_type(cxx) + " __jao, __jan;\n";
  if (p.locked) {
    out += "joule_oss_atomic_enter(); __jao = *__jap; __jan = " + next +
           "; *__jap = __jan; joule_oss_atomic_exit();\n";
  } else {
    out += std::string("__atomic_load(__jap, &__jao, ") + kSeq + ");\ndo { __jan = " + next +
           "; } while (!__atomic_compare_exchange(__jap, &__jao, &__jan, 0, " + kSeq + ", " + kSeq +
           "));\n";
  }
  if (!v.empty()) out += v + " = " + (p.capture_old ? "__jao;" : "__jan;");
  return out;
}

std::string Generator::atomic(Construct& c, Scope& s) {
  const AtomicPlan& p = c.atomic;
  bool cxx = m_.lang == Lang::Cxx;
  std::string x = atomic_part(c, p.x_b, p.x_e, s);
  std::string v = p.v_b == p.v_e ? "" : atomic_part(c, p.v_b, p.v_e, s);
  std::string out =
      "{" + line(c.src, c.pragma.begin) + "__typeof__(" + x + ") *__jap = &" + x + ";\n";
  if (p.e_b != p.e_e) {
    std::string e = sync(p.e_b) + atomic_part(c, p.e_b, p.e_e, s);
    if (p.form == AtomicPlan::Write)
      out += value_type(cxx) + " __jav = " + e + ";\n";
    else
      out += std::string(cxx ? "auto" : "__auto_type") + " __jav = " + e + ";\n";
  }
  switch (p.form) {
    case AtomicPlan::Read:
      out += value_type(cxx) + " __jat;\n";
      out += p.locked ? "joule_oss_atomic_enter(); __jat = *__jap; joule_oss_atomic_exit();\n"
                      : std::string("__atomic_load(__jap, &__jat, ") + kSeq + ");\n";
      out += v + " = __jat;";
      break;
    case AtomicPlan::Write:
      out += p.locked ? "joule_oss_atomic_enter(); *__jap = __jav; joule_oss_atomic_exit();"
                      : std::string("__atomic_store(__jap, &__jav, ") + kSeq + ");";
      break;
    case AtomicPlan::Update:
    case AtomicPlan::Capture:
      out += atomic_update(p, v);
      break;
  }
  return out + "}" + sync(c.end);
}

}  // namespace joulecc
