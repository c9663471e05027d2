// Calls of task functions across the whole translation unit (headers,
// inline functions, template instantiations, lambdas, macro expansions):
// where each must be rewritten, and why one cannot be. The Builder
// (clang_task_functions.cpp) rewrites each in the file its callee's name is
// written in; clang_consumer.cpp checks afterwards that every call found here
// was rewritten (docs/porting-ompss.md, section 4).
#include <clang/AST/RecursiveASTVisitor.h>

#include "clang_internal.hpp"

using namespace clang;

namespace joulecc {
namespace {

class CallFinder : public RecursiveASTVisitor<CallFinder> {
 public:
  CallFinder(const TaskFunctions& fns, std::vector<TaskCallSite>& out) : fns_(fns), out_(out) {}

  // An instantiation's calls are the ones that run: a call with dependent
  // arguments names its callee only there (at the template's own tokens).
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitCallExpr(CallExpr* ce) {
    const FunctionDecl* callee = ce->getDirectCallee();
    if (!callee || !fns_.count(callee->getCanonicalDecl())) return true;
    const auto* dre = dyn_cast<DeclRefExpr>(ce->getCallee()->IgnoreParenImpCasts());
    SourceLocation at = dre ? dre->getNameInfo().getLoc() : ce->getBeginLoc();
    out_.push_back({callee->getCanonicalDecl(), at, dre != nullptr});
    return true;
  }

 private:
  const TaskFunctions& fns_;
  std::vector<TaskCallSite>& out_;
};

class DeclsAt : public RecursiveASTVisitor<DeclsAt> {
 public:
  DeclsAt(const SourceManager& sm, const std::set<std::pair<FileID, unsigned>>& at,
          TaskFunctions& out)
      : sm_(sm), at_(at), out_(out) {}

  bool VisitFunctionDecl(FunctionDecl* fd) {
    if (fd->isTemplateInstantiation() || fd->getDescribedFunctionTemplate()) return true;
    SourceLocation b = sm_.getExpansionLoc(fd->getBeginLoc());
    if (b.isValid() && at_.count(sm_.getDecomposedLoc(b)))
      out_.emplace(fd->getCanonicalDecl(), fd);  // the first pragma'd declaration rules
    return true;
  }

 private:
  const SourceManager& sm_;
  const std::set<std::pair<FileID, unsigned>>& at_;
  TaskFunctions& out_;
};

}  // namespace

TaskFunctions function_decls_at(ASTContext& ast,
                                const std::set<std::pair<FileID, unsigned>>& positions) {
  TaskFunctions out;
  DeclsAt v(ast.getSourceManager(), positions, out);
  v.TraverseDecl(ast.getTranslationUnitDecl());
  return out;
}

std::vector<TaskCallSite> find_task_calls(ASTContext& ast, const TaskFunctions& fns) {
  std::vector<TaskCallSite> out;
  if (fns.empty()) return out;
  CallFinder v(fns, out);
  v.TraverseDecl(ast.getTranslationUnitDecl());
  return out;
}

bool call_spelling(const SourceManager& sm, const TaskCallSite& s, FileID& fid, unsigned& off,
                   std::string& why) {
  SourceLocation sp = sm.getSpellingLoc(s.name);
  if (!s.by_name) {
    why = "the callee is not named at the call (joulecc rewrites the name of the function)";
    return false;
  }
  if (sm.isWrittenInScratchSpace(sp)) {
    why =
        "its name is pasted together in a macro (##); write the name whole in the macro "
        "body or at the call";
    return false;
  }
  if (sm.isInSystemHeader(sp) || sm.isInSystemHeader(sm.getExpansionLoc(s.name))) {
    why =
        "it is in a system header (joulecc rewrites the program's own files only); "
        "call the task function from the program's code, or include the header with -I "
        "rather than -isystem";
    return false;
  }
  std::tie(fid, off) = sm.getDecomposedLoc(sp);
  return fid.isValid();
}

}  // namespace joulecc
