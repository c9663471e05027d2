// Builder (clang_builder.hpp): the run over one file, the files and
// #include splices it records, and the analysis of each construct.
#include "clang_builder.hpp"

#include <clang/Lex/Lexer.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include "clang_indexer.hpp"

using namespace clang;

namespace joulecc {

void Builder::run() {
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

// The #include lines of translated headers get their text; in a header
// pass, the other quoted #includes name their file by its absolute path
// (the text is compiled from elsewhere).
void Builder::splices() {
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
      c.end = le == std::string::npos ? static_cast<unsigned>(t.size()) : static_cast<unsigned>(le);
      unsigned next_line = cx_.model.files[0].lines->line(off) + 1;
      c.splice = pass_.spliced->at(child) + "#line " + std::to_string(next_line) + " " +
                 string_literal(line_name_);
      pass_.placed->insert(child);
    } else if (!child.isValid() && spliced_path(inc.path)) {
      // Skipped by its guard or #pragma once: the spliced copy came first.
      std::size_t ls = t.rfind('\n', off), le = t.find('\n', off);
      c.begin = ls == std::string::npos ? 0 : static_cast<unsigned>(ls + 1);
      c.end = le == std::string::npos ? static_cast<unsigned>(t.size()) : static_cast<unsigned>(le);
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

bool Builder::spliced_path(const std::string& path) const {
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

void Builder::remove_pragma(const PragmaText& pt) {
  Construct c;
  c.kind = CKind::Remove;
  c.id = next_id();
  c.begin = pt.begin;
  c.end = pt.end;
  cx_.model.constructs.push_back(std::move(c));
}

// The file entered through the #include at `at` (IncludeSeen::at).
FileID Builder::included_at(SourceLocation at) const {
  for (FileID fid : *pass_.entered)
    if (cx_.sm.getIncludeLoc(fid) == at) return fid;
  return FileID();
}

SourceFile Builder::make_file(FileID fid, const std::string& name) {
  SourceFile f;
  f.line_name = name;
  f.text = cx_.sm.getBufferData(fid).str();
  f.lines = std::make_unique<LineTable>(f.text);
  return f;
}

int Builder::src_of(FileID fid) {
  auto it = cx_.src_index.find(fid);
  if (it != cx_.src_index.end()) return it->second;
  const FileEntry* fe = cx_.sm.getFileEntryForID(fid);
  std::string name = fe ? fe->getName().str() : "<unknown>";
  cx_.model.files.push_back(make_file(fid, name));
  int idx = static_cast<int>(cx_.model.files.size()) - 1;
  cx_.src_index[fid] = idx;
  return idx;
}

void Builder::analyze(std::size_t i) {
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

// Outlined C tasks need their top-level function, the renamed references
// and the variables named by clauses of nested constructs.
void Builder::c_only() {
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

}  // namespace joulecc
