// device(mic) task functions: the wrapper packs the arguments into a block,
// describes each one (offset, pointer or not, name) and hands both to
// joule_oss_card_task, which runs a call function on the card after
// replacing every pointer argument by the card's copy of what it points at
// (docs/offload.md, "joulecc: device(mic)"). Task statements cannot be
// offloaded (their bodies reach data through the creator's variables); the
// front end rejects device(mic) on them.
#include "codegen.hpp"

namespace joulecc {
namespace {

std::string str(const std::string& s) { return "\"" + s + "\""; }  // identifiers only

}  // namespace

// copy_deps, or neither copy clauses nor no_copy_deps: the dependencies are copied.
bool Generator::copies_deps(const Construct& t) {
  if (t.dir.find("copy_deps")) return true;
  return !t.dir.find("no_copy_deps") && t.copies.empty();
}

bool Generator::on_card(const Construct& c) { return offload_device(c) == "mic"; }

// copy_in / copy_out / copy_inout into the list __jc, as regions of kind IN / OUT / INOUT.
std::string Generator::card_copies(const Construct& t) {
  Scope none;
  std::string out = "joule_oss_deps_t __jc; joule_oss_deps_init(&__jc);\n";
  for (RegionRef r : t.copies) {
    r.kind = r.kind == "copy_in" ? "in" : r.kind == "copy_out" ? "out" : "inout";
    std::string text = region(t, r, none);
    for (std::size_t at; (at = text.find("(&__jd, ")) != std::string::npos;)
      text.replace(at, 8, "(&__jc, ");
    out += text;
  }
  return out;
}

std::string Generator::card_submit(const FunctionTask& f, const Construct& t,
                                   const std::string& call, const std::string& table) {
  return "joule_oss_card_task(" + call + ", " + table + ", " +
         std::to_string(f.param_names.size()) + ", &__jarg, sizeof __jarg, &__jo, &__jd, " +
         (copies_deps(t) ? "1" : "0") + ", &__jc, " + str(t.dir.find("device")->modifier) + ");\n";
}

// C: the argument block's rows (offset, pointer or not, name), the statements
// that pack it and the call's arguments read back from it (through __ja).
Generator::ArgBlock Generator::arg_block_c(const FunctionTask& f, const std::string& st) {
  ArgBlock b;
  for (std::size_t i = 0; i < f.param_names.size(); ++i) {
    const std::string& n = f.param_names[i];
    b.args += (i ? ", " : "") + std::string("__ja->") + n;
    b.rows += "{offsetof(" + st + ", " + n + "), __builtin_classify_type(((" + st + " *)0)->" + n +
              ") == 5, " + str(n) + "},\n";
    const CType& ty = f.param_types[i];
    if (ty.shape == CType::Shape::Record)
      b.pack += "__builtin_memcpy(&__jarg." + n + ", &" + n + ", sizeof(__jarg." + n + "));\n";
    else
      b.pack += "__jarg." + n + " = " + (ty.shape == CType::Shape::PtrToArray ? "(void *)" : "") +
                n + ";\n";
  }
  if (b.rows.empty()) b.rows = "{0, 0, 0}\n";
  return b;
}

// C++: the same as a local struct __joule_fargs built from the parameters
// (pack: its type definitions and members; args: the call's arguments).
Generator::ArgBlock Generator::arg_block_cxx(const FunctionTask& f, const std::string& device) {
  ArgBlock b;
  std::string types, fields, init;
  for (std::size_t i = 0; i < f.param_names.size(); ++i) {
    const std::string& n = f.param_names[i];
    const std::string sep = i ? ", " : "";
    // Named outside the struct: a member may not change what its own name means in it.
    types += "typedef std::decay<decltype(" + n + ")>::type __jt_" + n + ";\n";
    fields += "__jt_" + n + " " + n + ";\n";
    init += sep + n;
    b.args += sep + "__ja->" + n;
    b.rows += "{offsetof(__joule_fargs, " + n + "), std::is_pointer<decltype(__joule_fargs::" + n +
              ")>::value, " + str(n) + "},\n";
  }
  if (fields.empty()) fields = "char __jempty;\n";
  if (b.rows.empty()) b.rows = "{0, 0, 0}\n";
  b.pack = types + "struct __joule_fargs {\n" + fields + "};\n" +
           "static_assert(std::is_trivially_copyable<__joule_fargs>::value, \"joulecc: the "
           "arguments of a device(" +
           device +
           ") task function are copied byte for byte: they must be trivially copyable\");\n"
           "__joule_fargs __jarg = {" +
           init + "};\n";
  return b;
}

// C: the call function (call_decl, then __ja and call_body), the table of
// the arguments and the wrapper, which packs them and ends with submit.
std::string Generator::offload_function_c(const FunctionTask& f, const Construct& t,
                                          const std::string& head, const ArgBlock& b,
                                          const std::string& call_decl,
                                          const std::string& call_body, const std::string& submit) {
  const std::string id = std::to_string(f.id), st = "struct __joule_fargs_" + id;
  return "static " + call_decl + "\n{\n" + st + " *__ja = (" + st + " *)__jv;\n(void)__ja;\n" +
         call_body + "}\nstatic const joule_oss_card_arg_t __joule_fctab_" + id + "[] = {\n" +
         b.rows + "};\nstatic void " + f.wrapper + "(" + f.params_def + ")\n{\n" + head +
         card_copies(t) + st + " __jarg;\n__builtin_memset(&__jarg, 0, sizeof __jarg);\n" + b.pack +
         submit + "}\n";
}

std::string Generator::card_function_c(const FunctionTask& f, const Construct& t,
                                       const std::string& head) {
  const std::string id = std::to_string(f.id), call = "__joule_fcall_" + id;
  const ArgBlock b = arg_block_c(f, "struct __joule_fargs_" + id);
  return offload_function_c(f, t, head, b, "void " + call + "(void *__jv)",
                            f.name + "(" + b.args + ");\n",
                            card_submit(f, t, call, "__joule_fctab_" + id));
}

// C++: the wrapper, which packs the arguments (b) and ends with submit.
std::string Generator::offload_function_cxx(const FunctionTask& f, const Construct& t,
                                            const std::string& head, const ArgBlock& b,
                                            const std::string& submit) {
  return "inline void " + f.wrapper + "(" + f.params_def + ")\n{\n" + head + card_copies(t) +
         b.pack + "static const joule_oss_card_arg_t __jtab[] = {\n" + b.rows + "};\n" + submit +
         "}\n";
}

std::string Generator::card_function_cxx(const FunctionTask& f, const Construct& t,
                                         const std::string& head) {
  const ArgBlock b = arg_block_cxx(f, "mic");
  const std::string call =
      "[](void *__jv) { __joule_fargs *__ja = static_cast<__joule_fargs *>(__jv); (void)__ja; " +
      f.name + "(" + b.args + "); }";
  return offload_function_cxx(f, t, head, b, card_submit(f, t, call, "__jtab"));
}

}  // namespace joulecc
