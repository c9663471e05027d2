// What the Clang front end learns about a translation unit, in plain data:
// the constructs to rewrite, the variables each task captures and how, the
// task functions. Code generation works on this model only, so it builds
// without Clang headers.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "../parser/directive.hpp"
#include "../parser/pragma_text.hpp"
#include "../parser/region.hpp"

// The _OPENMP value joulecc defines for files with omp/oss pragmas: OpenMP 3.0,
// the tasking version OmpSs-1 programs were written against.
#define JOULE_OPENMP_VERSION "200805"

namespace joulecc {

enum class Lang { C, Cxx };
enum class Sharing { Shared, FirstPrivate, Private };

// A file whose text appears in diagnostics or #line directives.
struct SourceFile {
  std::string line_name;  // name written in #line directives
  std::string text;
  std::unique_ptr<LineTable> lines;
};

// How a C variable is declared. Declarators use '@' for the name.
struct CType {
  // VmPointer: any other pointer of a variably modified type (`double
  // (**a)[n]`, a local `typedef double (*row_t)[n]`): decl is rebuilt
  // from the run-time sizes, dims holds one "" per size (clang_vm_types.cpp).
  enum class Shape { Scalar, Record, Array, PtrToArray, VmPointer };
  Shape shape = Shape::Scalar;
  std::string decl;               // Scalar/Record, top-level qualifiers dropped: "double *@"
  std::string decl_q;             // with qualifiers: "const int @"
  std::string elem;               // Array/PtrToArray: element declarator ("double @")
  std::vector<std::string> dims;  // outermost first; "" = run-time size (VLA)
  // VmPointer: each run-time size as the creator computes it, '@' standing
  // for the variable (only its type is used; no memory it points to is read).
  std::vector<std::string> vm_sizes;
  bool variable() const {
    for (const auto& d : dims)
      if (d.empty()) return true;
    return false;
  }
};

// C: a typedef declared in the creating function (outside the task's body)
// that the body names: declared again in the outlined function, its
// run-time sizes (a variably modified type) captured by value at creation,
// as GCC's OpenMP outlining does.
struct LocalTypedef {
  std::string name;
  std::string decl;                // '@' = the name; sizes are the locals __jt_<name>_<k>
  std::vector<std::string> sizes;  // as for CType::vm_sizes, '@' an object of the type
};

struct Capture {
  int var_id = 0;  // identity of the variable in this translation unit
  std::string name;
  Sharing sharing = Sharing::FirstPrivate;
  CType type;                   // C only
  bool static_storage = false;  // a static local: always reached through a pointer
  bool reduction = false;       // taskloop reduction: private copy combined at the end
  std::string red_op, red_identity;
  bool red_elems = false;  // taskloop reduction on a section or shaped pointer: an array copy
  int red_rank = 0;        // red_elems: array levels below the first subscript (a[i][j]: 1)
  bool loop_var = false;   // a taskloop variable declared before the loop
  bool scalar = false;     // of scalar type, not a constant: a C++ taskloop chunk's parameter
  bool global = false;     // a global (or static) reduced by a taskloop: C++ cannot capture it
  // C: a firstprivate const scalar with a constant initialiser: its value,
  // declared again in the outlined body so the compiler still sees it.
  std::string const_value;
};

// A dependence (or copy) item and what the analysis learnt about it.
struct RegionRef {
  Region region;
  std::string kind;         // in, out, inout, commutative, concurrent, reduction, copy_in, ...
  std::string array_param;  // the base is a parameter declared as an array: its first dimension
  std::string red_op;       // reduction operator
  bool weak = false;        // weakreduction (weakin, ...): the task's children access the data
  // A task reduction on a named variable of an arithmetic type: the element
  // type's JOULE_TYPE_* constant. Empty: updated in place (commutative).
  std::string red_type;
  // A taskloop dependency that uses the loop variable in a way a chunk's
  // bounds cannot bound (a[idx[i]], b[i % 8]): evaluated for each
  // iteration of the chunk when the chunk is created (loop_deps.cpp).
  bool per_iteration = false;
  // The base variable's type level by level (base a plain name): true
  // where a subscript goes through a pointer, so the levels before it are
  // not one block of memory. Empty when unknown.
  std::vector<bool> ptr_levels;
};

struct LoopLevel {
  std::string var;       // loop variable name
  std::string var_decl;  // its declarator with '@' ("int @")
  bool declared_in_init = true;
  std::string lo, hi, step;  // source text of the bounds and the step (signed)
  unsigned lo_off = 0, hi_off = 0, step_off = 0;
  int op = 0;  // 0 <, 1 <=, 2 >, 3 >=, 4 !=
};

struct FunctionTask {
  std::string name;
  std::string wrapper;                  // __joule_spawn_<name>
  std::string params_proto;             // "int n, double a[n][n]" (C++: with default arguments)
  std::string params_def;               // the same without default arguments
  std::vector<std::string> namespaces;  // C++: enclosing namespaces, outermost first
  std::vector<std::string> param_names;
  std::vector<CType> param_types;  // C
  std::vector<bool> param_is_ref;  // C++: reference parameters are captured by reference
  std::vector<bool> param_is_ptr;  // pointers (and arrays, which decay): device(cuda) maps them
  int construct = -1;              // index of the Task construct holding the clauses
  int id = 0;
};

// `#pragma omp atomic` as analysed: codegen emits __atomic builtins on x with
// the operand evaluated first, outside any lock (OpenMP's rule).
struct AtomicPlan {
  enum Form { Update, Read, Write, Capture } form = Update;
  std::string op;             // "+", "-", "*", "/", "&", "|", "^", "<<", ">>"; "" read/write
  unsigned x_b = 0, x_e = 0;  // main-file range of the shared location x
  unsigned v_b = 0, v_e = 0;  // capture/read target v
  unsigned e_b = 0, e_e = 0;  // the operand (empty: 1, for ++ and --)
  bool expr_left = false;     // x = expr op x
  bool capture_old = false;   // v receives x before the update
  bool fetch = false;         // integers with + - & | ^: one __atomic_fetch_<op>
  bool locked = false;        // not lock-free (size or type): joule's atomic lock
};

enum class CKind {
  Task,
  Taskloop,
  Taskwait,
  Release,
  Critical,
  Atomic,
  Taskgroup,
  Taskyield,
  Flush,
  Remove,    // a pragma that vanishes (function task pragma, assert, target)
  Rename,    // C: a reference to a variable reached through a pointer in outlined code
  TaskCall,  // the callee name of a call to a task function
  Insert,    // text for a function task (prototype or definition) at an offset
  Splice,    // literal text: a translated header in place of its #include, or its path
  TopDecl,   // C: a top-level declaration whose tasks are outlined before/after it
};

struct Construct {
  CKind kind = CKind::Remove;
  int id = 0;
  unsigned begin = 0, end = 0;  // the main-file range this construct replaces
  int src = 0;                  // index of the file holding the pragma
  PragmaText pragma;
  Directive dir;
  unsigned body_begin = 0, body_end = 0;  // associated statement (main file)
  std::vector<Capture> captures;
  std::vector<RegionRef> deps;
  std::vector<RegionRef> copies;
  std::vector<Expr> critical_name;
  AtomicPlan atomic;  // Atomic
  bool uses_this = false;
  bool function_task = false;              // the clauses of a task function
  std::vector<LoopLevel> loop;             // taskloop (collapse levels)
  bool loop_deps = false;                  // taskloop: a dependency uses the loop variable
  int var_id = 0;                          // Rename
  std::string var_name;                    // Rename
  int function = -1;                       // TaskCall / Insert / function Task
  bool insert_definition = false;          // Insert: definition (true) or prototype
  bool outside = false;                    // Insert: placed outside the function's namespaces
  bool prototype_only = false;             // Insert: the wrapper's declaration alone
  std::vector<std::string> macro_shared;   // C: shared names referenced from macro bodies
  std::vector<std::string> block_externs;  // C: block-scope extern declarations it uses
  std::vector<std::string> extern_vars;    // C: the variables among them (used at the site)
  std::vector<LocalTypedef> typedefs;      // C: local typedefs the body names
  std::string splice;                      // Splice
  std::vector<Construct*> children;        // filled by the renderer
};

// The device an offloaded task runs on: "mic" (the card), "cuda" (a GPU) or
// "" (the host: smp, fpga, or no device clause).
inline std::string offload_device(const Construct& c) {
  const Clause* d = c.dir.find("device");
  if (!d) return "";
  if (d->modifier.find("mic") != std::string::npos) return "mic";
  return d->modifier == "cuda" ? "cuda" : "";
}

struct Model {
  Lang lang = Lang::C;
  bool cxx20 = false;
  bool openmp = false;          // the compiler runs OpenMP: atomic goes to it
  bool ompss2 = false;          // defines _OMPSS_2
  bool openmp_macro = false;    // defines _OPENMP (JOULE_OPENMP_VERSION)
  bool header_pragmas = false;  // headers hold OmpSs pragmas the compiler will see
  std::string forced_headers;   // translated -include headers, before the source
  int main_src = 0;
  std::vector<SourceFile> files;
  std::vector<Construct> constructs;
  std::vector<FunctionTask> functions;
};

// Taskloop dependencies that use the loop variable (loop_deps.cpp): marks
// c.loop_deps and returns what joulecc cannot translate, at pragma positions.
struct DepProblem {
  unsigned pos = 0;
  std::string message;
};
std::vector<DepProblem> check_loop_deps(Construct& c);

// How the translation uses CUDA: 0 not at all, 1 device(cuda) task functions
// (the program links the CUDA runtime), 2 some with ndrange (the translation
// also includes <cuda_runtime_api.h> for cudaLaunchKernel).
inline int cuda_use(const Model& m) {
  int use = 0;
  for (const FunctionTask& f : m.functions) {
    if (f.construct < 0) continue;  // declared in a header's pass: its pragma is elsewhere
    const Construct& t = m.constructs[static_cast<std::size_t>(f.construct)];
    if (offload_device(t) == "cuda") use = std::max(use, t.dir.find("ndrange") ? 2 : 1);
  }
  return use;
}

// Produces the translated main file.
std::string generate(Model& m);

}  // namespace joulecc
