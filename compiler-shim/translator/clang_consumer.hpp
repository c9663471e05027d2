// The front end's AST consumer (clang_consumer.cpp): once Clang has parsed
// the translation unit, translates the headers with OmpSs pragmas, then the
// source, and checks that every call of a task function was rewritten.
#pragma once

#include <clang/AST/ASTConsumer.h>
#include <clang/Frontend/CompilerInstance.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model.hpp"
#include "pragma_recorder.hpp"
#include "translate.hpp"

namespace joulecc {

// What one translate() call asks for and what it produced.
struct RunState {
  const TranslateOptions* opts;
  Lang lang;
  bool ompss2;
  bool openmp_macro = false;
  TranslateResult* result;
  bool ok = false;
};

// The recorder's vectors (make_pragma_recorder) must outlive the consumer.
std::unique_ptr<clang::ASTConsumer> make_consumer(clang::CompilerInstance& ci, RunState& st,
                                                  std::vector<PragmaSeen>& seen,
                                                  std::set<std::string>& macros,
                                                  std::vector<IncludeSeen>& includes,
                                                  std::vector<clang::FileID>& entered);

}  // namespace joulecc
