// Builder (clang_builder.hpp): task functions (a pragma before a function
// declaration), the wrappers joulecc puts in their place and the calls of
// them, which call the wrappers instead.
#include <clang/Lex/Lexer.h>
#include <llvm/Support/Path.h>

#include <algorithm>

#include "../parser/source_scan.hpp"
#include "clang_builder.hpp"
#include "clang_indexer.hpp"

using namespace clang;

namespace joulecc {

void Builder::header_pragma(Construct& c, const PragmaSeen& p) {
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
bool Builder::untranslatable(const Construct& c, const PragmaSeen& p) {
  if (!pass_.unspliced) return false;
  auto it = pass_.unspliced->find(p.fid);
  if (it == pass_.unspliced->end()) return false;
  if (it->second.empty()) return true;  // -imacros
  const FileEntry* fe = cx_.sm.getFileEntryForID(p.fid);
  std::string name = fe ? llvm::sys::path::filename(fe->getName()).str() : "header.h";
  cx_.error(cx_.loc(c.src, c.pragma.begin),
            "'#pragma " + c.dir.spelled() + "' in a header joulecc cannot translate (" +
                it->second + "); include the header by name from the source ('#include \"" + name +
                "\"')");
  return true;
}

void Builder::function_task(Construct c, const FunctionDecl* fd) {
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
bool Builder::card_arguments_ok(const Construct& c, const FunctionTask& f) {
  const std::string dev = offload_device(c);
  if (dev.empty()) return true;
  const Clause* d = c.dir.find("device");
  bool ok = dev == "mic" || cuda_regions_ok(c, f);
  for (std::size_t i = 0; i < f.param_is_ref.size(); ++i)
    if (f.param_is_ref[i]) {
      cx_.error_at(c, d->pos,
                   "device(" + dev + ") task function '" + f.name + "' takes '" + f.param_names[i] +
                       "' by reference; a " + (dev == "mic" ? "card" : "CUDA") +
                       " task takes its arguments by value (pass a pointer to data its "
                       "dependencies or copy clauses name)");
      ok = false;
    }
  return ok;
}

// A device(cuda) task's regions are copied to the GPU and reached through
// the pointer arguments: each must be based on a pointer parameter.
bool Builder::cuda_regions_ok(const Construct& c, const FunctionTask& f) {
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
void Builder::function_inserts(int fi, const FunctionDecl* fd, bool main) {
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
bool Builder::include_point(SourceLocation l, unsigned& off) {
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
      off =
          nl == std::string::npos ? static_cast<unsigned>(t.size()) : static_cast<unsigned>(nl + 1);
      return true;
    }
    fid = cx_.sm.getFileID(inc);
  }
  return false;
}

bool Builder::decl_end(const FunctionDecl* fd, unsigned& off) {
  SourceLocation e = cx_.sm.getExpansionLoc(fd->getEndLoc());
  SourceLocation after = Lexer::getLocForEndOfToken(e, 0, cx_.sm, cx_.ast.getLangOpts());
  if (!cx_.main_offset(after, off)) return false;
  if (!fd->doesThisDeclarationHaveABody()) {
    auto tok = Lexer::findNextToken(e, cx_.sm, cx_.ast.getLangOpts());
    if (tok && tok->is(tok::semi)) cx_.main_offset(tok->getEndLoc(), off);
  }
  return true;
}

// Each call of a task function whose name is written in this file calls
// its wrapper instead; a header pass also declares the wrapper before the
// header's code that calls it (the including file's declaration comes
// after the #include). Consumer::check_calls checks that none was missed.
void Builder::calls() {
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
int Builder::function_index(const FunctionDecl* canon) {
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
void Builder::wrapper_declaration(int fi, const TaskCallSite& s,
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

const Decl* Builder::described_template(const Decl* d) {
  if (const auto* f = dyn_cast<FunctionDecl>(d))
    if (const Decl* t = f->getDescribedFunctionTemplate()) return t;
  if (const auto* r = dyn_cast<CXXRecordDecl>(d))
    if (const Decl* t = r->getDescribedClassTemplate()) return t;
  return d;
}

}  // namespace joulecc
