// One run of the front end over a file (clang_frontend.cpp): the Builder
// takes the recorded pragmas, ties each to the statement or function that
// follows and fills the Model. Its parts: clang_builder.cpp (the run, the
// files, splices and the analysis), clang_pragmas.cpp (the pragmas and their
// statements), clang_task_functions.cpp (task functions, their wrappers and
// the calls of them).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "clang_internal.hpp"
#include "pragma_recorder.hpp"

namespace joulecc {

class Indexer;

// A run of the Builder on one file. A header with statement pragmas is
// translated by a run of its own and its text replaces the #include that
// brought it (docs/porting-ompss.md, section 4).
struct Pass {
  clang::FileID header;  // invalid: the main file
  int id_base = 0;
  const std::map<clang::FileID, std::string>* spliced = nullptr;  // translated headers
  const std::vector<IncludeSeen>* includes = nullptr;
  const std::vector<clang::FileID>* entered = nullptr;  // every file entered, in order
  std::set<clang::FileID>* placed = nullptr;            // translated headers put in place
  // Headers of the program whose pragmas cannot be translated, and why.
  const std::map<clang::FileID, std::string>* unspliced = nullptr;
  clang::FileID predefines;                       // the buffer that holds the -include options
  const TaskFunctions* task_functions = nullptr;  // the whole translation unit's
  const std::vector<TaskCallSite>* task_calls = nullptr;  // and every call of them
  std::set<std::pair<clang::FileID, unsigned>>* rewritten =
      nullptr;  // call names rewritten, all passes
  // Ignored clauses already reported: (raw location, name).
  std::set<std::pair<unsigned, std::string>>* warned = nullptr;
};

class Builder {
 public:
  Builder(Context& cx, std::vector<PragmaSeen>& seen, const std::string& line_name,
          const Pass& pass)
      : cx_(cx), seen_(seen), line_name_(line_name), pass_(pass) {}

  // A header pass rewrote something: its text goes in place of the #include.
  bool translated() const { return !cx_.model.constructs.empty(); }

  void run();

 private:
  bool header_pass() const { return pass_.header.isValid(); }
  // Ids name the generated code: distinct across the passes of one file.
  int next_id() const { return pass_.id_base + static_cast<int>(cx_.model.constructs.size()) + 1; }
  bool spliced(clang::FileID fid) const { return pass_.spliced && pass_.spliced->count(fid); }

  // clang_builder.cpp
  void splices();
  bool spliced_path(const std::string& path) const;
  void remove_pragma(const PragmaText& pt);
  clang::FileID included_at(clang::SourceLocation at) const;
  SourceFile make_file(clang::FileID fid, const std::string& name);
  int src_of(clang::FileID fid);
  void analyze(std::size_t i);
  void c_only();

  // clang_pragmas.cpp
  void pragma(const PragmaSeen& p);
  bool read_construct(const PragmaSeen& p, Construct& c);
  void merge_pending_target(Construct& c);
  bool pragma_macro_alone(Construct& c, const PragmaSeen& p);
  bool ignored_clauses(const Construct& c);
  bool macro_body_directive(Construct& c, const PragmaSeen& p);
  void fpga_warning(const Construct& c);
  void target_without_task();
  bool parse_regions(Construct& c);
  bool attach_statement(Construct& c, unsigned next);
  void keep_directives(Construct& c, unsigned body);
  bool offloadable_statement(const Construct& c);
  void task(Construct c, unsigned next, const PragmaSeen& p);

  // clang_task_functions.cpp
  void header_pragma(Construct& c, const PragmaSeen& p);
  bool untranslatable(const Construct& c, const PragmaSeen& p);
  void function_task(Construct c, const clang::FunctionDecl* fd);
  bool card_arguments_ok(const Construct& c, const FunctionTask& f);
  bool cuda_regions_ok(const Construct& c, const FunctionTask& f);
  void function_inserts(int fi, const clang::FunctionDecl* fd, bool main);
  bool include_point(clang::SourceLocation l, unsigned& off);
  bool decl_end(const clang::FunctionDecl* fd, unsigned& off);
  void calls();
  int function_index(const clang::FunctionDecl* canon);
  void wrapper_declaration(int fi, const TaskCallSite& s,
                           std::set<std::pair<int, unsigned>>& declared);
  static const clang::Decl* described_template(const clang::Decl* d);

  Context& cx_;
  std::vector<PragmaSeen>& seen_;
  std::string line_name_;
  Pass pass_;
  Indexer* ix_ = nullptr;
  std::unique_ptr<Construct> pending_target_, header_target_;
  std::unique_ptr<Construct> device_from_target_;  // its id is the task's
  unsigned pending_next_ = 0, header_target_next_ = 0;
  bool fpga_warned_ = false;
  std::map<int, const clang::Stmt*> stmt_of_;
  std::map<int, const clang::FunctionDecl*> fn_of_;
  std::map<const clang::FunctionDecl*, int> task_fns_;
  std::vector<std::pair<Construct*, const clang::FunctionDecl*>> all_;
  std::vector<Construct> gap_removes_;  // pragmas cut from their construct (keep_directives)
  std::set<unsigned> macro_bodies_;     // _Pragmas rewritten in a macro's body
};

}  // namespace joulecc
