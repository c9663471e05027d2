// The front end's index of one translation unit (clang_builder.hpp): where
// statements start (main file), where declarations start (any file), the
// function bodies and the calls.
#pragma once

#include <clang/AST/RecursiveASTVisitor.h>

#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "clang_internal.hpp"

namespace joulecc {

class Indexer : public clang::RecursiveASTVisitor<Indexer> {
 public:
  explicit Indexer(Context& cx) : cx_(cx) {}

  bool VisitDecl(clang::Decl* d);
  bool VisitFunctionDecl(clang::FunctionDecl* fd);
  bool VisitCallExpr(clang::CallExpr* ce) {
    calls.push_back(ce);
    return true;
  }

  // Innermost function whose body holds the main-file offset.
  const clang::FunctionDecl* function_at(unsigned off) const;

  std::map<unsigned, std::pair<const clang::Stmt*, const clang::FunctionDecl*>> stmts;
  std::map<std::pair<clang::FileID, unsigned>, const clang::Decl*> decls;
  std::vector<std::tuple<unsigned, unsigned, const clang::FunctionDecl*>> bodies;
  std::vector<const clang::CallExpr*> calls;

 private:
  // Records s (when it stands where a statement goes) and what it nests.
  void walk(const clang::Stmt* s, const clang::FunctionDecl* fn, bool stmt_pos);

  Context& cx_;
};

}  // namespace joulecc
