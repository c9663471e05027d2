// Builder (clang_builder.hpp): the OmpSs pragmas of the file and the
// statements they apply to.
#include <clang/Lex/Lexer.h>

#include "../parser/source_scan.hpp"
#include "clang_builder.hpp"
#include "clang_indexer.hpp"

using namespace clang;

namespace joulecc {

namespace {

// The construct of a directive that applies as written (no statement of its
// own to analyse, or one attach_statement ties to it).
CKind statement_kind(DirKind k) {
  switch (k) {
    case DirKind::Critical:
      return CKind::Critical;
    case DirKind::Atomic:
      return CKind::Atomic;
    case DirKind::Taskgroup:
      return CKind::Taskgroup;
    case DirKind::Taskwait:
      return CKind::Taskwait;
    case DirKind::Release:
      return CKind::Release;
    case DirKind::Taskyield:
      return CKind::Taskyield;
    case DirKind::Flush:
      return CKind::Flush;
    default:
      return CKind::Remove;
  }
}

}  // namespace

void Builder::pragma(const PragmaSeen& p) {
  Construct c;
  if (!read_construct(p, c)) return;
  if (p.fid != cx_.main_fid) {
    cx_.model.header_pragmas = true;
    header_pragma(c, p);
    return;
  }
  unsigned next = next_token(cx_.model.files[0].text, c.pragma.end);
  c.begin = c.pragma.begin;
  c.end = c.pragma.end;
  c.id = next_id();
  if (pending_target_) merge_pending_target(c);
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
    default:
      c.kind = statement_kind(c.dir.kind);
      break;
  }
  bool wraps = c.kind == CKind::Taskloop || c.kind == CKind::Critical ||
               c.kind == CKind::Taskgroup || (c.kind == CKind::Atomic && !cx_.model.openmp);
  if (wraps && !attach_statement(c, next)) return;
  cx_.model.constructs.push_back(std::move(c));
}

// The OmpSs construct a recorded pragma spells, its clauses checked; false
// when it is none joulecc translates or it is wrong (the error is reported).
bool Builder::read_construct(const PragmaSeen& p, Construct& c) {
  llvm::StringRef buf = cx_.sm.getBufferData(p.fid);
  PragmaText pt;
  if (!p.text.empty()) {
    // _Pragma: every position of its text is reported at the invocation.
    pt.text = p.text;
    pt.begin = p.offset;
    pt.end = p.end;
  } else if (!read_pragma(std::string_view(buf.data(), buf.size()), p.offset, pt)) {
    return false;
  }
  std::string ns = pragma_namespace(pt);
  if (ns == "once" && header_pass()) {  // "in main file" otherwise
    remove_pragma(pt);
    return false;
  }
  if (ns != "oss" && ns != "omp") return false;
  c.pragma = pt;
  c.src = src_of(p.fid);
  ParseError err;
  if (!parse_directive(pt.text, c.dir, err)) {
    cx_.error(cx_.loc(c.src, pt.offset_of(err.pos)), err.message);
    return false;
  }
  if (c.dir.kind == DirKind::Passthrough) return false;
  if (!ignored_clauses(c)) return false;
  if (c.dir.kind == DirKind::Atomic && cx_.model.openmp && c.dir.prefix == Prefix::Omp)
    return false;
  if (!parse_regions(c)) return false;
  if (!p.text.empty() && !pragma_macro_alone(c, p)) return false;
  fpga_warning(c);
  return true;
}

// `#pragma omp target` then `#pragma omp task` at the statement it was
// waiting for: the task takes the target's clauses and copies.
void Builder::merge_pending_target(Construct& c) {
  if (c.dir.kind != DirKind::Task || c.begin != pending_next_) {
    target_without_task();
    return;
  }
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

// A _Pragma is rewritten by cutting its macro invocation out; code that
// the same invocation expands to would go with it (and the pragma would
// apply to what follows), so that is an error rather than a silent change.
bool Builder::pragma_macro_alone(Construct& c, const PragmaSeen& p) {
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
bool Builder::ignored_clauses(const Construct& c) {
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
    cx_.warning(at, "clause '" + cl.name + "' is ignored" +
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
bool Builder::macro_body_directive(Construct& c, const PragmaSeen& p) {
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
void Builder::fpga_warning(const Construct& c) {
  const Clause* d = c.dir.find("device");
  if (fpga_warned_ || !d || d->modifier.find("fpga") == std::string::npos) return;
  fpga_warned_ = true;
  cx_.warning(cx_.loc(c.src, c.pragma.offset_of(d->pos)),
              "joulecc runs device(fpga) tasks on the host (no FPGA support); "
              "num_instances and the other FPGA clauses are ignored");
}

void Builder::target_without_task() {
  cx_.error_at(*pending_target_, pending_target_->dir.name_pos,
               "'#pragma omp target' must be followed by a '#pragma omp task'");
  pending_target_.reset();
}

bool Builder::parse_regions(Construct& c) {
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

bool Builder::attach_statement(Construct& c, unsigned next) {
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
void Builder::keep_directives(Construct& c, unsigned body) {
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
bool Builder::offloadable_statement(const Construct& c) {
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

void Builder::task(Construct c, unsigned next, const PragmaSeen& p) {
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

}  // namespace joulecc
