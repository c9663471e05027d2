// The LibTooling front end: parses the source with Clang, records the OmpSs
// pragmas (Clang ignores them), ties each to the statement or function that
// follows, and builds the Model that codegen turns into C or C++.
#include <clang/AST/ASTConsumer.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "../parser/source_scan.hpp"
#include "clang_internal.hpp"
#include "pragma_recorder.hpp"
#include "translate.hpp"

using namespace clang;

namespace joulecc {
namespace {

// A run of the Builder on one file. A header with statement pragmas is
// translated by a run of its own and its text replaces the #include that
// brought it (docs/porting-ompss.md, section 4).
struct Pass {
  FileID header;  // invalid: the main file
  int id_base = 0;
  const std::map<FileID, std::string>* spliced = nullptr;  // translated headers
  const std::vector<IncludeSeen>* includes = nullptr;
  const std::vector<FileID>* entered = nullptr;  // every file entered, in order
  std::set<FileID>* placed = nullptr;            // translated headers put in place
  // Headers of the program whose pragmas cannot be translated, and why.
  const std::map<FileID, std::string>* unspliced = nullptr;
  FileID predefines;                              // the buffer that holds the -include options
  const TaskFunctions* task_functions = nullptr;  // the whole translation unit's
  const std::vector<TaskCallSite>* task_calls = nullptr;       // and every call of them
  std::set<std::pair<FileID, unsigned>>* rewritten = nullptr;  // call names rewritten, all passes
  // Ignored clauses already reported: (raw location, name).
  std::set<std::pair<unsigned, std::string>>* warned = nullptr;
};

// Where statements start (main file), where declarations start (any file),
// the function bodies and the calls.
class Indexer : public RecursiveASTVisitor<Indexer> {
 public:
  explicit Indexer(Context& cx) : cx_(cx) {}

  bool VisitDecl(Decl* d) {
    if (isa<TranslationUnitDecl>(d)) return true;
    SourceLocation b = cx_.sm.getExpansionLoc(d->getBeginLoc());
    if (b.isValid()) decls.emplace(cx_.sm.getDecomposedLoc(b), d);
    return true;
  }
  bool VisitFunctionDecl(FunctionDecl* fd) {
    if (!fd->doesThisDeclarationHaveABody() || fd->isTemplateInstantiation()) return true;
    unsigned b, e;
    if (!cx_.stmt_range(fd->getBody(), b, e)) return true;
    bodies.push_back({b, e, fd});
    walk(fd->getBody(), fd, false);
    return true;
  }
  bool VisitCallExpr(CallExpr* ce) {
    calls.push_back(ce);
    return true;
  }

  // Innermost function whose body holds the main-file offset.
  const FunctionDecl* function_at(unsigned off) const {
    const FunctionDecl* best = nullptr;
    unsigned width = ~0u;
    for (auto [b, e, fd] : bodies)
      if (off >= b && off < e && e - b < width) {
        best = fd;
        width = e - b;
      }
    return best;
  }

  std::map<unsigned, std::pair<const Stmt*, const FunctionDecl*>> stmts;
  std::map<std::pair<FileID, unsigned>, const Decl*> decls;
  std::vector<std::tuple<unsigned, unsigned, const FunctionDecl*>> bodies;
  std::vector<const CallExpr*> calls;

 private:
  void walk(const Stmt* s, const FunctionDecl* fn, bool stmt_pos) {
    if (!s) return;
    if (stmt_pos) {
      unsigned b;
      if (cx_.main_offset(s->getBeginLoc(), b)) stmts.emplace(b, std::make_pair(s, fn));
    }
    if (const auto* l = dyn_cast<LambdaExpr>(s)) {
      unsigned b, e;
      if (cx_.stmt_range(l->getBody(), b, e)) bodies.push_back({b, e, l->getCallOperator()});
      walk(l->getBody(), l->getCallOperator(), false);
      return;
    }
    if (isa<CompoundStmt>(s)) {
      for (const Stmt* c : s->children()) walk(c, fn, true);
      return;
    }
    std::set<const Stmt*> bodies_of;
    if (const auto* i = dyn_cast<IfStmt>(s))
      bodies_of = {i->getThen(), i->getElse()};
    else if (const auto* f = dyn_cast<ForStmt>(s))
      bodies_of = {f->getBody()};
    else if (const auto* w = dyn_cast<WhileStmt>(s))
      bodies_of = {w->getBody()};
    else if (const auto* d = dyn_cast<DoStmt>(s))
      bodies_of = {d->getBody()};
    else if (const auto* r = dyn_cast<CXXForRangeStmt>(s))
      bodies_of = {r->getBody()};
    else if (const auto* sw = dyn_cast<SwitchStmt>(s))
      bodies_of = {sw->getBody()};
    else if (const auto* sc = dyn_cast<SwitchCase>(s))
      bodies_of = {sc->getSubStmt()};
    else if (const auto* ls = dyn_cast<LabelStmt>(s))
      bodies_of = {ls->getSubStmt()};
    else if (const auto* as = dyn_cast<AttributedStmt>(s))
      bodies_of = {as->getSubStmt()};
    for (const Stmt* c : s->children()) walk(c, fn, c && bodies_of.count(c));
  }

  Context& cx_;
};

class Builder {
 public:
  Builder(Context& cx, std::vector<PragmaSeen>& seen, const std::string& line_name,
          const Pass& pass)
      : cx_(cx), seen_(seen), line_name_(line_name), pass_(pass) {}

  // A header pass rewrote something: its text goes in place of the #include.
  bool translated() const { return !cx_.model.constructs.empty(); }

  void run() {
    Model& m = cx_.model;
    m.files.push_back(make_file(cx_.main_fid, line_name_));
    cx_.src_index[cx_.main_fid] = 0;
    Indexer ix(cx_);
    ix.TraverseDecl(cx_.ast.getTranslationUnitDecl());
    ix_ = &ix;
    for (const PragmaSeen& p : seen_)
      if (!header_pass() || p.fid == cx_.main_fid) pragma(p);
    if (pending_target_) target_without_task();
    splices();
    for (Construct& r : gap_removes_) {
      r.id = next_id();
      m.constructs.push_back(std::move(r));
    }
    for (std::size_t i = 0; i < m.constructs.size(); ++i) analyze(i);
    calls();
    if (cx_.is_c()) c_only();
  }

 private:
  bool header_pass() const { return pass_.header.isValid(); }
  // Ids name the generated code: distinct across the passes of one file.
  int next_id() const { return pass_.id_base + static_cast<int>(cx_.model.constructs.size()) + 1; }
  bool spliced(FileID fid) const { return pass_.spliced && pass_.spliced->count(fid); }

  // The #include lines of translated headers get their text; in a header
  // pass, the other quoted #includes name their file by its absolute path
  // (the text is compiled from elsewhere).
  void splices() {
    const std::string& t = cx_.model.files[0].text;
    for (const IncludeSeen& inc : pass_.includes ? *pass_.includes : std::vector<IncludeSeen>()) {
      auto [fid, off] = cx_.sm.getDecomposedLoc(inc.name_begin);
      if (fid != cx_.main_fid) continue;
      FileID child = included_at(inc.at);
      Construct c;
      c.kind = CKind::Splice;
      c.id = next_id();
      if (child.isValid() && spliced(child)) {
        std::size_t ls = t.rfind('\n', off), le = t.find('\n', off);
        c.begin = ls == std::string::npos ? 0 : static_cast<unsigned>(ls + 1);
        c.end =
            le == std::string::npos ? static_cast<unsigned>(t.size()) : static_cast<unsigned>(le);
        unsigned next_line = cx_.model.files[0].lines->line(off) + 1;
        c.splice = pass_.spliced->at(child) + "#line " + std::to_string(next_line) + " " +
                   string_literal(line_name_);
        pass_.placed->insert(child);
      } else if (!child.isValid() && spliced_path(inc.path)) {
        // Skipped by its guard or #pragma once: the spliced copy came first.
        std::size_t ls = t.rfind('\n', off), le = t.find('\n', off);
        c.begin = ls == std::string::npos ? 0 : static_cast<unsigned>(ls + 1);
        c.end =
            le == std::string::npos ? static_cast<unsigned>(t.size()) : static_cast<unsigned>(le);
      } else if (header_pass() && !inc.angled) {
        c.begin = off;
        c.end = cx_.sm.getDecomposedLoc(inc.name_end).second;
        c.splice = string_literal(inc.path);
      } else {
        continue;
      }
      cx_.model.constructs.push_back(std::move(c));
    }
  }

  bool spliced_path(const std::string& path) const {
    if (!pass_.spliced) return false;
    for (const auto& [fid, text] : *pass_.spliced) {
      const FileEntry* fe = cx_.sm.getFileEntryForID(fid);
      SmallString<256> abs(fe ? fe->getName() : "");
      if (fe && !llvm::sys::fs::make_absolute(abs)) {
        llvm::sys::path::remove_dots(abs, true);
        if (abs.str() == path) return true;
      }
    }
    return false;
  }

  void remove_pragma(const PragmaText& pt) {
    Construct c;
    c.kind = CKind::Remove;
    c.id = next_id();
    c.begin = pt.begin;
    c.end = pt.end;
    cx_.model.constructs.push_back(std::move(c));
  }

  // The file entered through the #include at `at` (IncludeSeen::at).
  FileID included_at(SourceLocation at) const {
    for (FileID fid : *pass_.entered)
      if (cx_.sm.getIncludeLoc(fid) == at) return fid;
    return FileID();
  }

  SourceFile make_file(FileID fid, const std::string& name) {
    SourceFile f;
    f.line_name = name;
    f.text = cx_.sm.getBufferData(fid).str();
    f.lines = std::make_unique<LineTable>(f.text);
    return f;
  }

  int src_of(FileID fid) {
    auto it = cx_.src_index.find(fid);
    if (it != cx_.src_index.end()) return it->second;
    const FileEntry* fe = cx_.sm.getFileEntryForID(fid);
    std::string name = fe ? fe->getName().str() : "<unknown>";
    cx_.model.files.push_back(make_file(fid, name));
    int idx = static_cast<int>(cx_.model.files.size()) - 1;
    cx_.src_index[fid] = idx;
    return idx;
  }

  void pragma(const PragmaSeen& p) {
    bool main = p.fid == cx_.main_fid;
    llvm::StringRef buf = cx_.sm.getBufferData(p.fid);
    PragmaText pt;
    if (!p.text.empty()) {
      // _Pragma: every position of its text is reported at the invocation.
      pt.text = p.text;
      pt.begin = p.offset;
      pt.end = p.end;
    } else if (!read_pragma(std::string_view(buf.data(), buf.size()), p.offset, pt)) {
      return;
    }
    std::string ns = pragma_namespace(pt);
    if (ns == "once" && header_pass()) return remove_pragma(pt);  // "in main file" otherwise
    if (ns != "oss" && ns != "omp") return;
    Construct c;
    c.pragma = pt;
    c.src = src_of(p.fid);
    ParseError err;
    if (!parse_directive(pt.text, c.dir, err)) {
      cx_.error(cx_.loc(c.src, pt.offset_of(err.pos)), err.message);
      return;
    }
    if (c.dir.kind == DirKind::Passthrough) return;
    if (!ignored_clauses(c)) return;
    if (c.dir.kind == DirKind::Atomic && cx_.model.openmp && c.dir.prefix == Prefix::Omp) return;
    if (!parse_regions(c)) return;
    if (!p.text.empty() && !pragma_macro_alone(c, p)) return;
    fpga_warning(c);
    if (!main) {
      cx_.model.header_pragmas = true;
      header_pragma(c, p);
      return;
    }
    unsigned next = next_token(cx_.model.files[0].text, pt.end);
    c.begin = pt.begin;
    c.end = pt.end;
    c.id = next_id();
    if (pending_target_) {
      if (c.dir.kind != DirKind::Task || c.begin != pending_next_) {
        target_without_task();
      } else {
        // Diagnostics about the target's device clause point into the target's pragma.
        device_from_target_.reset();
        if (!c.dir.find("device") && pending_target_->dir.find("device")) {
          device_from_target_ = std::make_unique<Construct>(*pending_target_);
          device_from_target_->id = c.id;
        }
        for (const Clause& cl : pending_target_->dir.clauses) c.dir.clauses.push_back(cl);
        for (const RegionRef& r : pending_target_->copies) c.copies.push_back(r);
        pending_target_.reset();
      }
    }
    switch (c.dir.kind) {
      case DirKind::Target:
        pending_target_ = std::make_unique<Construct>(c);
        pending_next_ = next;
        c.kind = CKind::Remove;
        break;
      case DirKind::Task:
        return task(std::move(c), next, p);
      case DirKind::Taskloop:
        if (!offloadable_statement(c)) return;
        c.kind = CKind::Taskloop;
        break;
      case DirKind::Critical:
        c.kind = CKind::Critical;
        break;
      case DirKind::Atomic:
        c.kind = CKind::Atomic;
        break;
      case DirKind::Taskgroup:
        c.kind = CKind::Taskgroup;
        break;
      case DirKind::Taskwait:
        c.kind = CKind::Taskwait;
        break;
      case DirKind::Release:
        c.kind = CKind::Release;
        break;
      case DirKind::Taskyield:
        c.kind = CKind::Taskyield;
        break;
      case DirKind::Flush:
        c.kind = CKind::Flush;
        break;
      default:
        c.kind = CKind::Remove;
        break;
    }
    bool wraps = c.kind == CKind::Taskloop || c.kind == CKind::Critical ||
                 c.kind == CKind::Taskgroup || (c.kind == CKind::Atomic && !cx_.model.openmp);
    if (wraps && !attach_statement(c, next)) return;
    cx_.model.constructs.push_back(std::move(c));
  }

  // A _Pragma is rewritten by cutting its macro invocation out; code that
  // the same invocation expands to would go with it (and the pragma would
  // apply to what follows), so that is an error rather than a silent change.
  bool pragma_macro_alone(Construct& c, const PragmaSeen& p) {
    auto s = ix_->stmts.lower_bound(p.offset);
    auto d = ix_->decls.lower_bound({p.fid, p.offset});
    bool stmt_inside = p.fid == cx_.main_fid && s != ix_->stmts.end() && s->first < p.end;
    bool decl_inside = d != ix_->decls.end() && d->first.first == p.fid && d->first.second < p.end;
    if (!stmt_inside && !decl_inside) return true;
    if (macro_body_directive(c, p)) return false;
    cx_.error_at(c, 0,
                 "joulecc cannot translate '_Pragma(\"" + c.dir.spelled() +
                     "...\")' in a macro that also expands to code; put the pragma in a "
                     "macro of its own (or write '#pragma') before the statement");
    return false;
  }

  // Unknown clauses are dropped with a warning, as Mercurium does: one per
  // clause and place (a translated header's pragmas are read by its own
  // pass and by the including file's). `target` before device(mic|cuda) is
  // honoured: those clauses are the task's. A macro's name is an error:
  // its expansion (a dependence, say) would be dropped.
  bool ignored_clauses(const Construct& c) {
    for (const Clause& cl : c.dir.ignored) {
      SourceLocation at = cx_.loc(c.src, c.pragma.offset_of(cl.pos));
      if (cx_.macros.count(cl.name)) {
        cx_.error(at, "'" + cl.name + "' in '#pragma " + c.dir.spelled() +
                          "' is a macro: joulecc does not expand macros in pragmas; write its "
                          "clauses in the pragma, or make the whole pragma a macro "
                          "('#define T _Pragma(\"oss task ...\")')");
        return false;
      }
      if (!pass_.warned->insert({at.getRawEncoding(), cl.name}).second) continue;
      if (cl.name == "target" && !offload_device(c).empty()) continue;
      cx_.warning(at,
                  "clause '" + cl.name + "' is ignored" +
                      (cl.name == "target"
                           ? ": the task runs on the host (OmpSs-1 placement; copy clauses "
                             "have no effect there)"
                           : " (joulecc does not know it on '#pragma " + c.dir.spelled() + "')"));
    }
    return true;
  }

  // `#define T(t) {_Pragma("oss taskwait") t = 1;}`: a taskwait (taskyield,
  // flush) without clauses written in the body of a macro of this file is
  // rewritten in the #define, so each expansion runs it where it stands. A
  // task cannot be: its statement is the macro's code.
  bool macro_body_directive(Construct& c, const PragmaSeen& p) {
    const DirKind k = c.dir.kind;
    const bool plain = c.dir.clauses.empty() && c.dir.ignored.empty() &&
                       (k == DirKind::Taskwait || k == DirKind::Taskyield || k == DirKind::Flush);
    if (!plain || p.spell_end == 0 || p.spell_fid != cx_.main_fid) return false;
    if (!macro_bodies_.insert(p.spell_off).second) return true;  // another expansion
    c.kind = k == DirKind::Taskwait    ? CKind::Taskwait
             : k == DirKind::Taskyield ? CKind::Taskyield
                                       : CKind::Flush;
    c.begin = p.spell_off;
    c.end = p.spell_end;
    c.id = next_id();
    cx_.model.constructs.push_back(std::move(c));
    return true;
  }

  // device(fpga) tasks run on the host: said once per file, not per task.
  void fpga_warning(const Construct& c) {
    const Clause* d = c.dir.find("device");
    if (fpga_warned_ || !d || d->modifier.find("fpga") == std::string::npos) return;
    fpga_warned_ = true;
    cx_.warning(cx_.loc(c.src, c.pragma.offset_of(d->pos)),
                "joulecc runs device(fpga) tasks on the host (no FPGA support); "
                "num_instances and the other FPGA clauses are ignored");
  }

  void target_without_task() {
    cx_.error_at(*pending_target_, pending_target_->dir.name_pos,
                 "'#pragma omp target' must be followed by a '#pragma omp task'");
    pending_target_.reset();
  }

  bool parse_regions(Construct& c) {
    bool ok = true;
    for (const Clause& cl : c.dir.clauses) {
      bool dep = is_dependence_clause(cl);
      bool copy = cl.canonical.rfind("copy_", 0) == 0 && cl.form == ArgForm::Regions;
      if (!dep && !copy) continue;
      for (const Expr& a : cl.args) {
        RegionRef r;
        ParseError err;
        if (!parse_region(a, cl.canonical == "depend", r.region, err)) {
          cx_.error_at(c, err.pos, err.message);
          ok = false;
          continue;
        }
        r.kind = cl.canonical == "depend" ? cl.modifier : cl.canonical;
        if (cl.canonical == "reduction") r.red_op = cl.modifier;
        r.weak = cl.weak;
        (copy ? c.copies : c.deps).push_back(std::move(r));
      }
    }
    return ok;
  }

  bool attach_statement(Construct& c, unsigned next) {
    auto it = ix_->stmts.find(next);
    if (it == ix_->stmts.end()) {
      cx_.error_at(c, c.dir.name_pos,
                   "'#pragma " + c.dir.spelled() + "' must be followed by a statement");
      return false;
    }
    const Stmt* s = it->second.first;
    if (isa<DeclStmt>(s)) {
      cx_.error_at(c, c.dir.name_pos,
                   "'#pragma " + c.dir.spelled() + "' cannot apply to a declaration");
      return false;
    }
    if (c.kind == CKind::Taskloop && !isa<ForStmt>(s)) {
      cx_.error_at(c, c.dir.name_pos,
                   "'#pragma " + c.dir.spelled() + "' must be followed by a for loop");
      return false;
    }
    unsigned b, e;
    if (!cx_.stmt_extent(s, b, e)) return false;
    c.body_begin = b;
    c.body_end = e;
    c.end = e;
    keep_directives(c, b);
    stmt_of_[c.id] = s;
    fn_of_[c.id] = it->second.second;
    return true;
  }

  // Preprocessor lines between the pragma and its statement (`#endif`) stay
  // in the output: only the pragma goes, the construct starts at the statement.
  void keep_directives(Construct& c, unsigned body) {
    const std::string& t = cx_.model.files[0].text;
    std::size_t hash = t.find('#', c.pragma.end);
    if (hash == std::string::npos || hash >= body) return;
    Construct r;
    r.kind = CKind::Remove;
    r.begin = c.pragma.begin;
    r.end = c.pragma.end;
    gap_removes_.push_back(r);
    c.begin = body;
  }

  // device(mic) / device(cuda) run task functions on the card or a GPU; a
  // task statement's body reaches its data through the creator's variables,
  // which neither can.
  bool offloadable_statement(const Construct& c) {
    const Clause* d = c.dir.find("device");
    const std::string dev = offload_device(c);
    if (dev.empty()) return true;
    const bool merged = device_from_target_ && device_from_target_->id == c.id;
    const std::string where = dev == "mic" ? "the card" : "a GPU";
    cx_.error_at(merged ? *device_from_target_ : c, d->pos,
                 "device(" + dev +
                     ") applies to task functions only: joulecc cannot run a task "
                     "statement on " +
                     where +
                     "; put the body in a function declared with "
                     "'#pragma oss task device(" +
                     dev + ") ...' and call it");
    return false;
  }

  void task(Construct c, unsigned next, const PragmaSeen& p) {
    c.kind = CKind::Task;
    if (ix_->stmts.count(next)) {
      if (offloadable_statement(c) && attach_statement(c, next))
        cx_.model.constructs.push_back(std::move(c));
      return;
    }
    if (header_pass()) return;  // a task function: the including file's pass makes its wrapper
    auto d = ix_->decls.find({p.fid, next});
    if (d == ix_->decls.end() || !isa<FunctionDecl>(d->second)) {
      if (d != ix_->decls.end() && isa<FunctionTemplateDecl>(d->second))
        cx_.error_at(c, c.dir.name_pos, "joulecc does not support template task functions");
      else
        cx_.error_at(c, c.dir.name_pos,
                     "'#pragma " + c.dir.spelled() +
                         "' must be followed by a statement or a function declaration");
      return;
    }
    function_task(std::move(c), cast<FunctionDecl>(d->second));
  }

  void header_pragma(Construct& c, const PragmaSeen& p) {
    if (c.dir.kind == DirKind::Target) {
      header_target_ = std::make_unique<Construct>(c);
      header_target_next_ = next_token(cx_.model.files[c.src].text, c.pragma.end);
      return;
    }
    if (c.dir.kind != DirKind::Task) {
      if (spliced(p.fid) || untranslatable(c, p)) return;  // spliced: the header's own pass
      // An atomic too: left alone it would silently not be atomic.
      cx_.warning(cx_.loc(c.src, c.pragma.begin),
                  "'#pragma " + c.dir.spelled() +
                      "' in a header is not translated (joulecc rewrites "
                      "only the source file it is given)");
      return;
    }
    if (header_target_ && header_target_->src == c.src && header_target_next_ == c.pragma.begin) {
      for (const Clause& cl : header_target_->dir.clauses) c.dir.clauses.push_back(cl);
      for (const RegionRef& r : header_target_->copies) c.copies.push_back(r);
    }
    header_target_.reset();
    unsigned next = next_token(cx_.model.files[c.src].text, c.pragma.end);
    auto d = ix_->decls.find({p.fid, next});
    if (d == ix_->decls.end() || !isa<FunctionDecl>(d->second)) {
      if (spliced(p.fid) || untranslatable(c, p)) return;
      cx_.warning(cx_.loc(c.src, c.pragma.begin),
                  "'#pragma " + c.dir.spelled() +
                      "' in a header applies only to function declarations; ignored");
      return;
    }
    c.kind = CKind::Task;
    c.id = next_id();
    function_task(std::move(c), cast<FunctionDecl>(d->second));
  }

  // A statement pragma in a header of the program (not a system one) that
  // joulecc cannot translate: left to the compiler, its tasks would run
  // serially without a word, so the compilation stops.
  bool untranslatable(const Construct& c, const PragmaSeen& p) {
    if (!pass_.unspliced) return false;
    auto it = pass_.unspliced->find(p.fid);
    if (it == pass_.unspliced->end()) return false;
    if (it->second.empty()) return true;  // -imacros
    const FileEntry* fe = cx_.sm.getFileEntryForID(p.fid);
    std::string name = fe ? llvm::sys::path::filename(fe->getName()).str() : "header.h";
    cx_.error(cx_.loc(c.src, c.pragma.begin),
              "'#pragma " + c.dir.spelled() + "' in a header joulecc cannot translate (" +
                  it->second + "); include the header by name from the source ('#include \"" +
                  name + "\"')");
    return true;
  }

  void function_task(Construct c, const FunctionDecl* fd) {
    bool main = c.src == 0;
    const FunctionDecl* canon = fd->getCanonicalDecl();
    if (task_fns_.count(canon)) {  // a second pragma'd declaration: the first one rules
      if (main) {
        c.kind = CKind::Remove;
        cx_.model.constructs.push_back(std::move(c));
      }
      return;
    }
    for (const Clause& cl : c.dir.clauses)
      if (cl.form == ArgForm::Names || cl.canonical == "default")
        cx_.error_at(c, cl.pos, "clause '" + cl.name + "' is not allowed on a task function");
    FunctionTask f;
    if (!analyze_function(cx_, f, fd)) return;
    if (!card_arguments_ok(c, f)) return;
    f.id = c.id;
    c.function_task = true;
    c.begin = main ? c.pragma.begin : 0;
    c.end = main ? c.pragma.end : 0;
    f.construct = static_cast<int>(cx_.model.constructs.size());
    int fi = static_cast<int>(cx_.model.functions.size());
    c.function = fi;
    fn_of_[c.id] = fd;
    task_fns_[canon] = fi;
    cx_.model.functions.push_back(std::move(f));
    cx_.model.constructs.push_back(std::move(c));
    function_inserts(fi, fd, main);
  }

  // A device(mic) or device(cuda) task function's arguments are copied byte
  // for byte (to the card, or into the GPU task): a reference would point
  // into the host's memory.
  bool card_arguments_ok(const Construct& c, const FunctionTask& f) {
    const std::string dev = offload_device(c);
    if (dev.empty()) return true;
    const Clause* d = c.dir.find("device");
    bool ok = dev == "mic" || cuda_regions_ok(c, f);
    for (std::size_t i = 0; i < f.param_is_ref.size(); ++i)
      if (f.param_is_ref[i]) {
        cx_.error_at(c, d->pos,
                     "device(" + dev + ") task function '" + f.name + "' takes '" +
                         f.param_names[i] + "' by reference; a " +
                         (dev == "mic" ? "card" : "CUDA") +
                         " task takes its arguments by value (pass a pointer to data its "
                         "dependencies or copy clauses name)");
        ok = false;
      }
    return ok;
  }

  // A device(cuda) task's regions are copied to the GPU and reached through
  // the pointer arguments: each must be based on a pointer parameter.
  bool cuda_regions_ok(const Construct& c, const FunctionTask& f) {
    bool ok = true;
    for (const std::vector<RegionRef>* list : {&c.deps, &c.copies})
      for (const RegionRef& r : *list) {
        const Region& g = r.region;
        auto at = std::find(f.param_names.begin(), f.param_names.end(), g.base_name);
        if (at != f.param_names.end() && f.param_is_ptr[at - f.param_names.begin()]) continue;
        cx_.error_at(c, g.base_name_pos,
                     "device(cuda) task function '" + f.name + "': '" + g.base_name + "' in '" +
                         r.kind + "' is not " +
                         (at == f.param_names.end() ? "a parameter" : "a pointer") +
                         "; a CUDA task's regions are what its pointer parameters point at "
                         "(the GPU gets a copy of each and the kernel the copy's address)");
        ok = false;
      }
    return ok;
  }

  // The wrapper's prototype goes before the first declaration (or after the
  // #include that brought it), its definition after the pragma'd declaration.
  void function_inserts(int fi, const FunctionDecl* fd, bool main) {
    const FunctionDecl* first = fd->getFirstDecl();
    unsigned proto = 0, def = 0;
    bool first_main = cx_.main_offset(first->getBeginLoc(), proto);
    bool proto_ok = first_main || include_point(first->getBeginLoc(), proto);
    bool def_ok = main ? decl_end(fd, def) : (def = proto, proto_ok);
    if (!proto_ok || !def_ok) {
      cx_.error(fd->getLocation(),
                "joulecc cannot place the task wrapper of '" + fd->getNameAsString() + "'");
      return;
    }
    Construct p;
    p.kind = CKind::Insert;
    p.function = fi;
    p.begin = p.end = proto;
    p.outside = !first_main;
    p.id = next_id();
    cx_.model.constructs.push_back(p);
    Construct d = p;
    d.insert_definition = true;
    d.begin = d.end = def;
    d.outside = !main;
    d.id = p.id + 1;
    cx_.model.constructs.push_back(d);
  }

  // Start of the line after the main-file #include that (transitively) includes l.
  bool include_point(SourceLocation l, unsigned& off) {
    FileID fid = cx_.sm.getFileID(cx_.sm.getExpansionLoc(l));
    for (int guard = 0; guard < 256 && fid.isValid(); ++guard) {
      SourceLocation inc = cx_.sm.getIncludeLoc(fid);
      if (inc.isInvalid()) return false;
      if (cx_.sm.getFileID(inc) == pass_.predefines) {  // -include: before the source
        off = 0;
        return true;
      }
      if (cx_.sm.getFileID(inc) == cx_.main_fid) {
        const std::string& t = cx_.model.files[0].text;
        std::size_t nl = t.find('\n', cx_.sm.getFileOffset(inc));
        off = nl == std::string::npos ? static_cast<unsigned>(t.size())
                                      : static_cast<unsigned>(nl + 1);
        return true;
      }
      fid = cx_.sm.getFileID(inc);
    }
    return false;
  }

  bool decl_end(const FunctionDecl* fd, unsigned& off) {
    SourceLocation e = cx_.sm.getExpansionLoc(fd->getEndLoc());
    SourceLocation after = Lexer::getLocForEndOfToken(e, 0, cx_.sm, cx_.ast.getLangOpts());
    if (!cx_.main_offset(after, off)) return false;
    if (!fd->doesThisDeclarationHaveABody()) {
      auto tok = Lexer::findNextToken(e, cx_.sm, cx_.ast.getLangOpts());
      if (tok && tok->is(tok::semi)) cx_.main_offset(tok->getEndLoc(), off);
    }
    return true;
  }

  void analyze(std::size_t i) {
    Construct& c = cx_.model.constructs[i];
    if (c.kind == CKind::Insert || c.kind == CKind::Remove || c.kind == CKind::Splice) return;
    const FunctionDecl* fn = fn_of_.count(c.id) ? fn_of_[c.id] : ix_->function_at(c.begin);
    unsigned at = c.function_task ? 0 : c.pragma.begin;
    check_regions(cx_, c, at, fn);
    all_.push_back({&c, fn});
    if (c.kind == CKind::Atomic) analyze_atomic(cx_, c, stmt_of_[c.id]);
    if (c.kind != CKind::Task && c.kind != CKind::Taskloop) return;
    if (c.function_task) return;
    const Stmt* body = stmt_of_[c.id];
    std::set<const VarDecl*> loop_vars;
    if (c.kind == CKind::Taskloop) {
      if (!analyze_loop(cx_, c, cast<ForStmt>(body), loop_vars, body)) return;
      for (const DepProblem& p : check_loop_deps(c)) cx_.error_at(c, p.pos, p.message);
      unsigned b, e;
      if (!cx_.stmt_extent(body, b, e)) return;
      c.body_begin = b;
      c.body_end = e;
    }
    analyze_captures(cx_, c, body, fn, loop_vars);
  }

  // Each call of a task function whose name is written in this file calls
  // its wrapper instead; a header pass also declares the wrapper before the
  // header's code that calls it (the including file's declaration comes
  // after the #include). Consumer::check_calls checks that none was missed.
  void calls() {
    std::set<unsigned> names;
    std::set<std::pair<int, unsigned>> declared;
    for (const TaskCallSite& s : *pass_.task_calls) {
      int fi = function_index(s.callee);
      if (fi < 0) continue;
      if (header_pass()) wrapper_declaration(fi, s, declared);
      FileID fid;
      unsigned off;
      std::string why;
      if (!call_spelling(cx_.sm, s, fid, off, why) || fid != cx_.main_fid) continue;
      pass_.rewritten->insert({fid, off});
      if (!names.insert(off).second) continue;  // a template's or a macro's tokens, again
      Construct c;
      c.kind = CKind::TaskCall;
      c.function = fi;
      c.begin = off;
      c.end = off + static_cast<unsigned>(s.callee->getName().size());
      c.id = next_id();
      cx_.model.constructs.push_back(std::move(c));
    }
  }

  // The model's index of a task function; a header pass analyses it here
  // (the main pass, which sees its pragma, makes its wrapper).
  int function_index(const FunctionDecl* canon) {
    auto it = task_fns_.find(canon);
    if (it != task_fns_.end()) return it->second;
    if (!header_pass()) return -1;
    auto d = pass_.task_functions->find(canon);
    FunctionTask f;
    if (d == pass_.task_functions->end() || !analyze_function(cx_, f, d->second))
      return task_fns_[canon] = -1;
    cx_.model.functions.push_back(std::move(f));
    return task_fns_[canon] = static_cast<int>(cx_.model.functions.size()) - 1;
  }

  // The wrapper's declaration before the declaration at namespace scope
  // that holds a call made in this header: in the task function's own
  // namespace when the call is there, else at file scope with its namespaces.
  void wrapper_declaration(int fi, const TaskCallSite& s,
                           std::set<std::pair<int, unsigned>>& declared) {
    unsigned off;
    const FunctionDecl* fn = cx_.main_offset(s.name, off) ? ix_->function_at(off) : nullptr;
    if (!fn) return;
    const DeclContext* home = s.callee->getDeclContext()->getRedeclContext();
    const Decl* d = fn;
    bool outside = true;
    for (int guard = 0; guard < 64; ++guard) {
      d = described_template(d);
      const DeclContext* dc = d->getLexicalDeclContext();
      if (isa<TranslationUnitDecl>(dc) || (isa<NamespaceDecl>(dc) && dc->Equals(home))) {
        outside = !dc->Equals(home);
        break;
      }
      d = cast<Decl>(dc);
    }
    unsigned at;
    if (!cx_.main_offset(d->getBeginLoc(), at)) {
      cx_.error(s.name, "joulecc cannot place the task wrapper of '" + s.callee->getNameAsString() +
                            "' before this call");
      return;
    }
    if (!declared.insert({fi, at}).second) return;
    Construct p;
    p.kind = CKind::Insert;
    p.function = fi;
    p.begin = p.end = at;
    p.outside = outside;
    p.prototype_only = true;
    p.id = next_id();
    cx_.model.constructs.push_back(p);
  }

  static const Decl* described_template(const Decl* d) {
    if (const auto* f = dyn_cast<FunctionDecl>(d))
      if (const Decl* t = f->getDescribedFunctionTemplate()) return t;
    if (const auto* r = dyn_cast<CXXRecordDecl>(d))
      if (const Decl* t = r->getDescribedClassTemplate()) return t;
    return d;
  }

  // Outlined C tasks need their top-level function, the renamed references
  // and the variables named by clauses of nested constructs.
  void c_only() {
    add_clause_captures(cx_, all_);
    std::vector<Construct> extra;
    std::set<const Decl*> tops;
    for (Construct& c : cx_.model.constructs) {
      if ((c.kind != CKind::Task && c.kind != CKind::Taskloop) || c.function_task) continue;
      const FunctionDecl* fn = fn_of_[c.id];
      const Decl* top = fn;
      while (top && !isa<TranslationUnitDecl>(top->getDeclContext()))
        top = cast<Decl>(top->getDeclContext());
      if (!top || !tops.insert(top).second) continue;
      Construct t;
      t.kind = CKind::TopDecl;
      unsigned b, e;
      SourceLocation end = Lexer::getLocForEndOfToken(cx_.sm.getExpansionLoc(top->getEndLoc()), 0,
                                                      cx_.sm, cx_.ast.getLangOpts());
      if (!cx_.main_offset(top->getBeginLoc(), b) || !cx_.main_offset(end, e)) continue;
      t.begin = b;
      t.end = e;
      extra.push_back(std::move(t));
    }
    for (auto& [off, v] : cx_.renames) {
      Construct r;
      r.kind = CKind::Rename;
      r.begin = off;
      r.end = off + static_cast<unsigned>(v.second.size());
      r.var_id = v.first;
      r.var_name = v.second;
      extra.push_back(std::move(r));
    }
    for (Construct& c : extra) {
      c.id = next_id();
      cx_.model.constructs.push_back(std::move(c));
    }
  }

  Context& cx_;
  std::vector<PragmaSeen>& seen_;
  std::string line_name_;
  Pass pass_;
  Indexer* ix_ = nullptr;
  std::unique_ptr<Construct> pending_target_, header_target_;
  std::unique_ptr<Construct> device_from_target_;  // its id is the task's
  unsigned pending_next_ = 0, header_target_next_ = 0;
  bool fpga_warned_ = false;
  std::map<int, const Stmt*> stmt_of_;
  std::map<int, const FunctionDecl*> fn_of_;
  std::map<const FunctionDecl*, int> task_fns_;
  std::vector<std::pair<Construct*, const FunctionDecl*>> all_;
  std::vector<Construct> gap_removes_;  // pragmas cut from their construct (keep_directives)
  std::set<unsigned> macro_bodies_;     // _Pragmas rewritten in a macro's body
};

struct RunState {
  const TranslateOptions* opts;
  Lang lang;
  bool ompss2;
  bool openmp_macro = false;
  TranslateResult* result;
  bool ok = false;
};

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

class Action : public ASTFrontendAction {
 public:
  explicit Action(RunState& st) : st_(st) {}
  bool BeginSourceFileAction(CompilerInstance& ci) override {
    ci.getPreprocessor().addPPCallbacks(
        make_pragma_recorder(ci.getPreprocessor(), seen_, macros_, includes_, entered_));
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<Consumer>(ci, st_, seen_, macros_, includes_, entered_);
  }

 private:
  RunState& st_;
  std::vector<PragmaSeen> seen_;
  std::set<std::string> macros_;
  std::vector<IncludeSeen> includes_;
  std::vector<FileID> entered_;
};

class Factory : public tooling::FrontendActionFactory {
 public:
  explicit Factory(RunState& st) : st_(st) {}
  std::unique_ptr<FrontendAction> create() override { return std::make_unique<Action>(st_); }

 private:
  RunState& st_;
};

bool is_cxx_name(const std::string& path) {
  static const char* const exts[] = {".cc", ".cpp", ".cxx", ".c++", ".C",
                                     ".cp", ".CPP", ".ii",  ".hpp", ".hh"};
  for (const char* e : exts) {
    std::size_t n = std::strlen(e);
    if (path.size() > n && path.compare(path.size() - n, n, e) == 0) return true;
  }
  return false;
}

// True when the text holds `#pragma <ns>` or `_Pragma("<ns>` (a quick scan,
// before parsing).
bool has_pragma(const std::string& text, const char* ns, const char* word = "pragma") {
  if (std::strcmp(word, "pragma") == 0 && has_pragma(text, ns, "_Pragma(\"")) return true;
  std::size_t i = 0;
  const std::size_t n = std::strlen(word);
  while ((i = text.find(word, i)) != std::string::npos) {
    std::size_t j = i + n;
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
    if (text.compare(j, 3, ns) == 0 &&
        (j + 3 >= text.size() || !std::isalnum(static_cast<unsigned char>(text[j + 3]))))
      return true;
    i = j;
  }
  return false;
}

}  // namespace

int translate(const TranslateOptions& opts, TranslateResult& result) {
  RunState st;
  st.opts = &opts;
  st.result = &result;
  st.lang = opts.lang == 1 || (opts.lang < 0 && is_cxx_name(opts.input)) ? Lang::Cxx : Lang::C;
  std::string text;
  if (opts.contents) {
    text = *opts.contents;
  } else {
    std::ifstream in(opts.input, std::ios::binary);
    if (!in) {
      std::string msg = "joulecc: error: cannot open '" + opts.input + "'\n";
      if (opts.diagnostics)
        *opts.diagnostics += msg;
      else
        llvm::errs() << msg;
      return 1;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  // As `mcc --ompss-2` and `clang -fompss-2`: every file sees _OMPSS_2,
  // whatever its pragmas; only an explicit --ompss (OmpSs-1) leaves it out.
  st.ompss2 = opts.mode != 1;
  // As Mercurium: sources with OmpSs/OpenMP pragmas see _OPENMP (joule's
  // <omp.h> answers the omp_* calls); with -fopenmp the compiler defines it.
  st.openmp_macro = !opts.openmp && (has_pragma(text, "oss") || has_pragma(text, "omp"));
  std::vector<std::string> args = {st.lang == Lang::Cxx ? "-xc++" : "-xc"};
  for (const std::string& f : opts.flags) args.push_back(f);
  args.push_back("-w");
  args.push_back("-Wno-unknown-pragmas");
  args.push_back("-ferror-limit=20");
  args.push_back("-D_OMPSS=1");
  args.push_back("-D__joule_pragma(x)=_Pragma(#x)");  // pragma-line macros with clause arguments
  if (st.ompss2) args.push_back("-D_OMPSS_2=1");
  if (st.openmp_macro) args.push_back("-D_OPENMP=" JOULE_OPENMP_VERSION);
  if (!opts.resource_dir.empty()) args.push_back("-resource-dir=" + opts.resource_dir);
  // ToolInvocation keeps the file name as given, so diagnostics read like the compiler's.
  std::vector<std::string> cmd = {"joulecc", "-fsyntax-only"};
  cmd.insert(cmd.end(), args.begin(), args.end());
  cmd.push_back(opts.input);
  auto fs = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  if (opts.contents) {  // the text to parse comes from memory (tests, fuzzing)
    auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    if (auto cwd = fs->getCurrentWorkingDirectory()) mem->setCurrentWorkingDirectory(*cwd);
    mem->addFile(opts.input, 0, llvm::MemoryBuffer::getMemBufferCopy(*opts.contents));
    fs->pushOverlay(mem);
  }
  llvm::IntrusiveRefCntPtr<FileManager> files(new FileManager(FileSystemOptions(), fs));
  tooling::ToolInvocation inv(cmd, std::make_unique<Action>(st), files.get());
  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  DiagnosticOptions* dopts = new DiagnosticOptions;
  dopts->ShowColors = !opts.diagnostics && llvm::errs().has_colors();
  llvm::raw_ostream& dest =
      opts.diagnostics ? static_cast<llvm::raw_ostream&>(diag_os) : llvm::errs();
  TextDiagnosticPrinter printer(dest, dopts);
  inv.setDiagnosticConsumer(&printer);
  int rc = inv.run() ? 0 : 1;
  diag_os.flush();
  if (opts.diagnostics) *opts.diagnostics += diag_os.str();
  return rc == 0 && st.ok ? 0 : 1;
}

}  // namespace joulecc
