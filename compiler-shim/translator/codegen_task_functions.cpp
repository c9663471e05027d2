// Task functions: the wrapper that creates a task for each call of a
// function declared with a task pragma.
#include "codegen.hpp"
#include "codegen_capture.hpp"

namespace joulecc {

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
