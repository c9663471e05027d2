// Code generation from the Model: the main file with every construct
// replaced by calls to <joule/ompss.h>. C tasks become outlined functions with
// argument structs; C++ tasks become lambdas. #line directives keep the
// user's file, line and column for diagnostics and debuggers.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model.hpp"

namespace joulecc {

// What names mean where code is being generated (C: shared variables are
// reached through pointers inside outlined functions).
struct Scope {
  std::map<int, std::string> by_id;
  std::vector<std::pair<std::string, std::string>> by_name;
  std::string* pre = nullptr;   // C: text placed before the current top-level function
  std::string* post = nullptr;  // C: text placed after it
  std::string access(int id, const std::string& name) const {
    auto it = by_id.find(id);
    return it == by_id.end() ? name : it->second;
  }
  std::string access_name(const std::string& name) const {
    for (const auto& [n, a] : by_name)
      if (n == name) return a;
    return name;
  }
};

class Generator {
 public:
  explicit Generator(Model& m);
  std::string run();

 private:
  // ---- text and positions (codegen.cpp)
  std::string line(int src, unsigned offset) const;  // "\n#line L \"file\"\n"
  std::string sync(unsigned main_offset) const;      // line + indent: the next char is at offset
  std::string user(const Construct& c, const Expr& e, const Scope& s) const;  // a clause expression
  std::string inline_text(const Expr& e, const Scope& s) const;
  std::string source(unsigned off, const std::string& text,
                     const Scope& s) const;  // main-file text
  std::string text(unsigned b, unsigned e) const;
  std::string label(const Construct& c) const;

  // ---- tree and simple constructs (codegen.cpp)
  void build_tree();
  std::string render_range(unsigned b, unsigned e, const std::vector<Construct*>& kids, Scope& s);
  std::string render(Construct& c, Scope& s);
  std::string body(Construct& c, Scope& s);
  std::string taskwait(Construct& c, Scope& s);
  std::string wrapped(Construct& c, Scope& s, const std::string& enter, const std::string& exit);
  std::string top_decl(Construct& c, Scope& s);
  std::string options(const Construct& c, const Scope& s, const std::string& label_text = "");
  std::string deps(const Construct& c, const std::vector<RegionRef>& list, const Scope& s);
  std::string region(const Construct& c, const RegionRef& r, const Scope& s);
  std::string region_runs(const Construct& c, const RegionRef& r, const Scope& s);
  std::string multidep(const Construct& c, const RegionRef& r, const Scope& s);
  std::string section_length(const Construct& c, const Region& g, const Section& sec,
                             const std::string& lo, const Scope& s) const;
  // Task reductions (codegen_reduction.cpp): whether r gets an operator and
  // its body a private copy, and the code that points the body there.
  bool task_reduction(const Construct& c, const RegionRef& r) const;
  bool loop_reduction(const Construct& c, const RegionRef& r) const;
  bool redirected(const Construct& c, const std::string& name) const;
  std::string reduction_region(const Construct& c, const RegionRef& r, const Scope& s,
                               const std::string& runs);
  std::string redirect_cxx(const Construct& c) const;
  std::string redirect_function(const Construct& t, const FunctionTask& f) const;
  std::string device(const Construct& c) const;
  std::string reduction_open(const Construct& c, const Capture& cap, const Scope& s,
                             const std::string& at);
  std::string reduction_close(const Construct& c, const Capture& cap, const std::string& ns) const;

  // ---- atomic (codegen_atomic.cpp)
  std::string atomic(Construct& c, Scope& s);
  std::string atomic_part(Construct& c, unsigned b, unsigned e, Scope& s);
  std::string atomic_update(const AtomicPlan& p, const std::string& v);

  // ---- tasks (codegen_tasks.cpp, codegen_taskloop.cpp, codegen_task_functions.cpp)
  std::string task_c(Construct& c, Scope& s);
  std::string task_cxx(Construct& c, Scope& s);
  std::string taskloop_c(Construct& c, Scope& s);
  std::string taskloop_cxx(Construct& c, Scope& s);
  std::string function_insert(Construct& c);
  std::string wrapper_declaration(const FunctionTask& f, const Construct& c);
  std::string fields_c(const Construct& c) const;
  std::string capture_c(const Construct& c, const Scope& s, bool& dynamic) const;
  struct CreatorArgs {
    std::string assign, size, bytes;  // statements; the size's statements; the size expression
  };
  CreatorArgs creator_args_c(const Construct& c, const Scope& s, const std::string& st) const;
  std::string prologue_c(const Construct& c, bool chunk, Scope& inner) const;
  std::string loop_levels_c(const Construct& c, const Scope& s) const;
  std::string loop_levels_cxx(const Construct& c, const Scope& s) const;
  std::string loop_indices(const Construct& c, bool cxx) const;
  std::string capture_list_cxx(const Construct& c, bool inner) const;
  std::string taskloop_site_c(Construct& c, Scope& s, const std::string& st,
                              const std::string& entry);
  struct ChunkParams {
    std::string decls, args, prologue;  // ", T a, ..."; ", __ja->a, ..."; what stays local
  };
  ChunkParams chunk_params(const Construct& c, const std::string& pro) const;
  std::string chunk_call_cxx(const Construct& c, const std::string& b, const std::string& e,
                             const std::string& loop) const;

  // ---- taskloop dependencies over the loop variable (loop_deps.cpp)
  RegionRef chunk_region(const Construct& c, const RegionRef& r) const;
  std::string chunk_bounds(const Construct& c, const std::string& pre) const;
  std::string chunk_loop(const Construct& c, const Scope& s, const std::string& n,
                         const std::string& g) const;
  std::string chunk_deps(const Construct& c, const Scope& s);
  std::string per_iteration_region(const Construct& c, const RegionRef& r, const Scope& s);

  // ---- device(mic) task functions (codegen_card.cpp)
  struct ArgBlock {
    std::string args, rows, pack;
  };
  static ArgBlock arg_block_c(const FunctionTask& f, const std::string& st);
  static ArgBlock arg_block_cxx(const FunctionTask& f, const std::string& device);
  static bool copies_deps(const Construct& t);
  static bool on_card(const Construct& c);
  std::string card_copies(const Construct& t);
  std::string card_submit(const FunctionTask& f, const Construct& t, const std::string& call,
                          const std::string& table);
  std::string offload_function_c(const FunctionTask& f, const Construct& t, const std::string& head,
                                 const ArgBlock& b, const std::string& call_decl,
                                 const std::string& call_body, const std::string& submit);
  std::string offload_function_cxx(const FunctionTask& f, const Construct& t,
                                   const std::string& head, const ArgBlock& b,
                                   const std::string& submit);
  std::string card_function_c(const FunctionTask& f, const Construct& t, const std::string& head);
  std::string card_function_cxx(const FunctionTask& f, const Construct& t, const std::string& head);

  // ---- device(cuda) task functions (codegen_cuda.cpp)
  std::string cuda_launch(const FunctionTask& f, const Construct& t, const std::string& args) const;
  std::string cuda_submit(const FunctionTask& f, const Construct& t, const std::string& call,
                          const std::string& table);
  std::string cuda_function_c(const FunctionTask& f, const Construct& t, const std::string& head);
  std::string cuda_function_cxx(const FunctionTask& f, const Construct& t, const std::string& head);

  Model& m_;
  const SourceFile& main_;
  std::vector<Construct*> roots_;
};

}  // namespace joulecc
