// The AST consumer (clang_consumer.hpp): the passes of the Builder over the
// headers that need one and over the source (docs/porting-ompss.md, section 4).
#include "clang_consumer.hpp"

#include <algorithm>
#include <map>

#include "../parser/source_scan.hpp"
#include "clang_builder.hpp"

using namespace clang;

namespace joulecc {
namespace {

class Consumer : public ASTConsumer {
 public:
  Consumer(CompilerInstance& ci, RunState& st, std::vector<PragmaSeen>& seen,
           std::set<std::string>& macros, std::vector<IncludeSeen>& includes,
           std::vector<FileID>& entered)
      : ci_(ci), st_(st), seen_(seen), macros_(macros), includes_(includes), entered_(entered) {}

  void HandleTranslationUnit(ASTContext& ast) override {
    DiagnosticsEngine& d = ci_.getDiagnostics();
    if (d.hasErrorOccurred()) return;
    task_functions_ = find_task_functions(ast);
    task_calls_ = find_task_calls(ast, task_functions_);
    if (!translate_headers(ast)) return;
    Model m;
    Context cx(ast, d, m);
    start_model(m, ast);
    place_forced(m, ast.getSourceManager());
    cx.macros = macros_;
    std::string name = st_.opts->line_name.empty() ? st_.opts->input : st_.opts->line_name;
    Builder(cx, seen_, name, pass(FileID())).run();
    for (const auto& [f, text] : spliced_)  // never a translated header silently left out
      if (!placed_.count(f))
        cx.error(ast.getSourceManager().getLocForStartOfFile(f),
                 "joulecc cannot put the translation of this header in place of its #include");
    if (cx.errors || d.hasErrorOccurred() || !check_calls(cx)) return;
    st_.result->output = generate(m);
    st_.result->header_pragmas = m.header_pragmas;
    st_.result->cuda = cuda_use(m) > 0;
    SourceManager& sm = ast.getSourceManager();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it)
      st_.result->files.push_back(it->getFirst()->getName().str());
    st_.ok = true;
  }

 private:
  void start_model(Model& m, ASTContext& ast) const {
    m.lang = st_.lang;
    m.cxx20 = ast.getLangOpts().CPlusPlus20;
    m.openmp = st_.opts->openmp;
    m.ompss2 = st_.ompss2;
    m.openmp_macro = st_.openmp_macro;
  }

  Pass pass(FileID header) {
    Pass p;
    p.header = header;
    p.id_base = header.isValid() ? 100000 * static_cast<int>(spliced_.size() + 1) : 0;
    p.spliced = &spliced_;
    p.includes = &includes_;
    p.entered = &entered_;
    p.placed = &placed_;
    p.unspliced = &unspliced_;
    p.predefines = ci_.getPreprocessor().getPredefinesFileID();
    p.task_functions = &task_functions_;
    p.task_calls = &task_calls_;
    p.rewritten = &rewritten_;
    p.warned = &warned_;
    return p;
  }

  // The functions task pragmas apply to, wherever the pragma is: a header's
  // pass rewrites calls of functions whose pragma another file holds.
  TaskFunctions find_task_functions(ASTContext& ast) const {
    SourceManager& sm = ast.getSourceManager();
    std::set<std::pair<FileID, unsigned>> at;
    for (const PragmaSeen& p : seen_) {
      llvm::StringRef buf = sm.getBufferData(p.fid);
      PragmaText pt;
      if (!p.text.empty()) {
        pt.text = p.text;
        pt.end = p.end;
      } else if (!read_pragma(std::string_view(buf.data(), buf.size()), p.offset, pt)) {
        continue;
      }
      std::string ns = pragma_namespace(pt);
      Directive dir;
      ParseError err;
      if ((ns != "oss" && ns != "omp") || !parse_directive(pt.text, dir, err) ||
          dir.kind != DirKind::Task)
        continue;
      at.insert({p.fid, next_token(buf.str(), pt.end)});
    }
    return function_decls_at(ast, at);
  }

  // Every call of a task function the compiler saw must have been rewritten
  // by one of the passes: one that was not is an error at the call, with
  // the reason, never a plain call (issue: calls in headers ran serially).
  bool check_calls(Context& cx) {
    SourceManager& sm = cx.sm;
    std::set<std::pair<FileID, unsigned>> seen;
    std::size_t missed = 0;
    for (const TaskCallSite& s : task_calls_) {
      FileID fid;
      unsigned off;
      std::string why;
      bool spelled = call_spelling(sm, s, fid, off, why);
      if (spelled && !seen.insert({fid, off}).second) continue;
      if (spelled && rewritten_.count({fid, off})) continue;
      ++missed;
      if (spelled) why = why_not_rewritten(fid);
      cx.error(sm.getExpansionLoc(s.name), "this call to task function '" +
                                               s.callee->getNameAsString() +
                                               "' cannot be turned into a task: " + why);
    }
    return missed == 0;
  }

  std::string why_not_rewritten(FileID f) const {
    auto it = unspliced_.find(f);
    if (it != unspliced_.end())
      return "it is in a header joulecc cannot translate (" + it->second + ")";
    return "joulecc's own check found it untranslated (" + std::to_string(rewritten_.size()) +
           " of " + std::to_string(task_calls_.size()) +
           " calls rewritten); please report this with the file";
  }

  // The file that includes f: none for the main file and for a -include
  // header (its include location is the predefines buffer).
  FileID includer(const SourceManager& sm, FileID f) const {
    FileID g = sm.getFileID(sm.getIncludeLoc(f));
    return g == ci_.getPreprocessor().getPredefinesFileID() ? FileID() : g;
  }

  // -include headers that the driver leaves out of the compile: their
  // translations come before the source's, where the option puts them.
  void place_forced(Model& m, const SourceManager& sm) {
    for (const IncludeSeen& inc : includes_) {
      if (sm.getFileID(inc.at) != ci_.getPreprocessor().getPredefinesFileID()) continue;
      for (FileID f : entered_)
        if (sm.getIncludeLoc(f) == inc.at && spliced_.count(f) && placed_.insert(f).second) {
          m.forced_headers += spliced_[f];
          st_.result->forced_includes.push_back(inc.spelled);
        }
    }
  }

  // Headers (not system ones) that hold OmpSs pragmas, and the headers that
  // include them, deepest first: each is translated with its translated
  // children in place, and kept when it changed.
  bool translate_headers(ASTContext& ast) {
    SourceManager& sm = ast.getSourceManager();
    std::map<FileID, int> depth;
    for (FileID fid : files_to_translate(sm)) {
      if (fid == sm.getMainFileID() || sm.isInSystemHeader(sm.getLocForStartOfFile(fid))) continue;
      if (std::string why = why_not_spliceable(sm, fid); !why.empty()) {
        unspliced_[fid] = why == "-" ? "" : why;
        continue;
      }
      for (FileID f = fid; f.isValid() && f != sm.getMainFileID(); f = includer(sm, f))
        depth[f] = 0;
    }
    std::vector<std::pair<int, FileID>> order;
    for (auto& [f, dep] : depth) {
      for (FileID g = f; g.isValid() && g != sm.getMainFileID(); g = includer(sm, g)) ++dep;
      order.push_back({-dep, f});
    }
    std::sort(order.begin(), order.end());
    for (auto& [neg_depth, f] : order)
      if (!translate_header(ast, f)) return false;
    return true;
  }

  // The files with OmpSs pragmas, with calls of task functions written in
  // them, or with code that calls one (through a macro written elsewhere:
  // the wrapper is declared there).
  std::set<FileID> files_to_translate(const SourceManager& sm) const {
    std::set<FileID> out;
    for (const PragmaSeen& p : seen_) out.insert(p.fid);
    for (const TaskCallSite& s : task_calls_) {
      FileID fid;
      unsigned off;
      std::string why;
      if (call_spelling(sm, s, fid, off, why)) out.insert(fid);
      out.insert(sm.getFileID(sm.getExpansionLoc(s.name)));
    }
    return out;
  }

  // "" when every #include from the main file down to f is one joulecc can
  // replace (`#include MACRO` too: the preprocessor resolved it), or a
  // -include option the driver takes out of the compile; else why not, for
  // the error at the header's pragmas.
  std::string why_not_spliceable(const SourceManager& sm, FileID f) const {
    for (; f != sm.getMainFileID(); f = sm.getFileID(sm.getIncludeLoc(f))) {
      SourceLocation at = sm.getIncludeLoc(f);
      const IncludeSeen* inc = nullptr;
      for (const IncludeSeen& i : includes_) inc = i.at == at ? &i : inc;
      if (!inc || !sm.getFileEntryForID(f))
        return "joulecc cannot replace the #include that brings it";
      if (inc->macros_only) return "-";  // -imacros keeps only its macros: no code to run
      if (!includer(sm, f).isValid())
        return st_.opts->forced_includes ? ""
                                         : "it comes from a -include option, which 'joulecc "
                                           "--translate' cannot take out of the compile";
    }
    return "";
  }

  bool translate_header(ASTContext& ast, FileID f) {
    SourceManager& sm = ast.getSourceManager();
    const FileEntry* fe = sm.getFileEntryForID(f);
    if (!fe || sm.getIncludeLoc(f).isInvalid() || sm.getIncludeLoc(f).isMacroID()) return true;
    Model hm;
    Context hcx(ast, ci_.getDiagnostics(), hm, f);
    start_model(hm, ast);
    hcx.macros = macros_;
    Builder b(hcx, seen_, fe->getName().str(), pass(f));
    b.run();
    if (hcx.errors || ci_.getDiagnostics().hasErrorOccurred()) return false;
    bool child = false;
    for (const Construct& c : hm.constructs)
      child = child || (c.kind == CKind::Splice && c.splice.rfind("\"", 0) != 0);
    if (b.translated() && (child || has_statement_construct(hm))) spliced_[f] = generate(hm);
    return true;
  }

  static bool has_statement_construct(const Model& m) {
    for (const Construct& c : m.constructs)  // a target/assert line alone: left as it is
      if (c.kind != CKind::Splice && c.kind != CKind::Remove) return true;
    return false;
  }

  CompilerInstance& ci_;
  RunState& st_;
  std::vector<PragmaSeen>& seen_;
  std::set<std::string>& macros_;
  std::vector<IncludeSeen>& includes_;
  std::vector<FileID>& entered_;
  std::map<FileID, std::string> spliced_;
  std::map<FileID, std::string> unspliced_;
  std::set<FileID> placed_;
  TaskFunctions task_functions_;
  std::vector<TaskCallSite> task_calls_;
  std::set<std::pair<FileID, unsigned>> rewritten_;
  std::set<std::pair<unsigned, std::string>> warned_;
};

}  // namespace

std::unique_ptr<ASTConsumer> make_consumer(CompilerInstance& ci, RunState& st,
                                           std::vector<PragmaSeen>& seen,
                                           std::set<std::string>& macros,
                                           std::vector<IncludeSeen>& includes,
                                           std::vector<FileID>& entered) {
  return std::make_unique<Consumer>(ci, st, seen, macros, includes, entered);
}

}  // namespace joulecc
