// Shared by the translation units that include Clang headers (clang_*.cpp,
// task_calls.cpp, pragma_recorder.cpp). Everything else is Clang-free.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "model.hpp"

namespace joulecc {

// A local variable and the main-file range where its name is visible.
struct ScopedVar {
  const clang::VarDecl* var;
  unsigned decl_off, scope_begin, scope_end;
};

// One translation run: the AST, the model being built and the diagnostics.
struct Context {
  clang::ASTContext& ast;
  clang::SourceManager& sm;
  clang::DiagnosticsEngine& diags;
  Model& model;
  clang::FileID main_fid;
  std::set<std::string> macros;            // every macro name defined while parsing
  std::map<clang::FileID, int> src_index;  // files of pragmas -> model.files
  std::map<const clang::VarDecl*, int> var_ids;
  std::map<unsigned, std::pair<int, std::string>> renames;  // C: offset -> (var id, name)
  std::map<const clang::FunctionDecl*, std::vector<ScopedVar>> scopes;  // lookup cache
  bool errors = false;

  // `file`: the file this run rewrites (a header translated for inclusion,
  // see clang_builder.hpp), the main file by default.
  Context(clang::ASTContext& a, clang::DiagnosticsEngine& d, Model& m,
          clang::FileID file = clang::FileID())
      : ast(a),
        sm(a.getSourceManager()),
        diags(d),
        model(m),
        main_fid(file.isValid() ? file : sm.getMainFileID()) {}

  bool is_c() const { return model.lang == Lang::C; }
  int var_id(const clang::VarDecl* v) {
    auto it = var_ids.find(v);
    if (it != var_ids.end()) return it->second;
    int id = static_cast<int>(var_ids.size()) + 1;
    var_ids.emplace(v, id);
    return id;
  }
  clang::SourceLocation loc(int src, unsigned offset) const;
  clang::SourceLocation main_loc(unsigned offset) const {
    return sm.getLocForStartOfFile(main_fid).getLocWithOffset(static_cast<int>(offset));
  }
  void error(clang::SourceLocation at, const std::string& msg);
  void warning(clang::SourceLocation at, const std::string& msg);
  // Error at a position of a construct's pragma text.
  void error_at(const Construct& c, unsigned text_pos, const std::string& msg) {
    error(loc(c.src, c.pragma.offset_of(text_pos)), msg);
  }
  // Main-file offset of a location's expansion; false outside the main file.
  bool main_offset(clang::SourceLocation l, unsigned& off) const;
  // [begin, end) main-file offsets of a statement's tokens.
  bool stmt_range(const clang::Stmt* s, unsigned& b, unsigned& e) const;
  // The same with the ';' that ends an expression, return, do-while... statement.
  bool stmt_extent(const clang::Stmt* s, unsigned& b, unsigned& e) const;
  std::string text(unsigned b, unsigned e) const;
  std::string text(clang::SourceRange r) const;  // tokens of r as written (expansion)
};

// ---- analysis (clang_context.cpp, clang_regions.cpp, clang_captures.cpp,
// clang_taskloop.cpp, clang_types.cpp) ----------------------------------------

// Finds what `name` means at main-file offset `at` inside fn (params, locals in
// scope, then the enclosing contexts). nullptr when unknown.
const clang::NamedDecl* lookup(Context& cx, const std::string& name, unsigned at,
                               const clang::FunctionDecl* fn);

// Checks the data references of c's clauses (names, lvalues, sections) and
// records what codegen needs (array parameters). at: position of the pragma.
void check_regions(Context& cx, Construct& c, unsigned at, const clang::FunctionDecl* fn);

// Fills c.captures from the statement's references (task and taskloop).
void analyze_captures(Context& cx, Construct& c, const clang::Stmt* body,
                      const clang::FunctionDecl* fn,
                      const std::set<const clang::VarDecl*>& loop_vars);

// Taskloop: the canonical loop nest of c.loop (collapse levels) and the body.
bool analyze_loop(Context& cx, Construct& c, const clang::ForStmt* loop,
                  std::set<const clang::VarDecl*>& loop_vars, const clang::Stmt*& body);

// C: the variables named in the clauses of constructs nested in a task body
// must reach the outlined code too.
void add_clause_captures(Context& cx,
                         const std::vector<std::pair<Construct*, const clang::FunctionDecl*>>& all);

// `#pragma omp atomic` (clang_atomic.cpp): fills c.atomic from the statement;
// false (with an error) for a form joulecc does not lower.
bool analyze_atomic(Context& cx, Construct& c, const clang::Stmt* s);

// Parameters of a task function.
bool analyze_function(Context& cx, FunctionTask& f, const clang::FunctionDecl* fd);

// A type as C source with `placeholder` where the declared name goes.
std::string print_type(Context& cx, clang::QualType t, const std::string& placeholder);
// The first type declared inside a function that t names (outlined C code
// cannot name it), or nullptr.
const clang::NamedDecl* local_type(clang::QualType t);

// Variably modified types (clang_vm_types.cpp). A pointer of such a type
// (`double (**a)[n]`) as CType::Shape::VmPointer; false (with an error)
// when some part cannot be rebuilt (a function type, an array of unknown size).
bool describe_vm_pointer(Context& cx, clang::QualType t, CType& out, clang::SourceLocation at,
                         const std::string& name);
// A local typedef the task body names; false (with an error) as above or
// when it names a type declared inside the function (a struct).
bool describe_local_typedef(Context& cx, const clang::TypedefNameDecl* d, LocalTypedef& out,
                            clang::SourceLocation at);

// C type description of a variable's type; false (with an error) when not supported.
bool describe_type(Context& cx, clang::QualType t, CType& out, clang::SourceLocation at,
                   const std::string& name);

// ---- calls of task functions (task_calls.cpp) -----------------------------

// Task functions: canonical declaration -> the first declaration with the pragma.
using TaskFunctions = std::map<const clang::FunctionDecl*, const clang::FunctionDecl*>;

// A call of a task function as the compiler saw it.
struct TaskCallSite {
  const clang::FunctionDecl* callee;  // canonical
  clang::SourceLocation name;         // the callee's name at the call (may be in a macro)
  bool by_name;                       // called through its name (a DeclRefExpr)
};

// The function declarations (not templates) that start at the positions
// (expansion locations): the declarations task pragmas apply to.
TaskFunctions function_decls_at(clang::ASTContext& ast,
                                const std::set<std::pair<clang::FileID, unsigned>>& positions);

// Every call of a task function in the translation unit, template
// instantiations included (the same tokens may appear more than once).
std::vector<TaskCallSite> find_task_calls(clang::ASTContext& ast, const TaskFunctions& fns);

// The file and offset where the call's name is written (what joulecc
// rewrites), or false and why it cannot be rewritten.
bool call_spelling(const clang::SourceManager& sm, const TaskCallSite& s, clang::FileID& fid,
                   unsigned& off, std::string& why);

}  // namespace joulecc
