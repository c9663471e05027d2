// Entry point of the translator: one C or C++ source in, the translated
// source out. Clang-free interface (the implementation uses LibTooling).
#pragma once

#include <string>
#include <vector>

namespace joulecc {

struct TranslateOptions {
  std::string input;               // path of the source
  std::string line_name;           // file name for #line (default: input as given)
  std::vector<std::string> flags;  // the compiler's -I/-D/-U/-std/-include... flags
  int lang = -1;                   // -1: from the file name, 0: C, 1: C++
  bool openmp = false;             // the compiler runs OpenMP: `atomic` is left to it
  int mode = 0;                    // 0: OmpSs-2 if the file has `#pragma oss`, 1: OmpSs, 2: OmpSs-2
  std::string resource_dir;        // Clang's resource directory (stddef.h, ...)
  const std::string* contents = nullptr;  // parse this text instead of reading input
  std::string* diagnostics = nullptr;     // collect diagnostics here instead of stderr
  // The compile will leave out the -include headers the translation holds
  // (the driver); otherwise such a header with statement pragmas is an error.
  bool forced_includes = false;
};

struct TranslateResult {
  std::string output;              // the translated source
  std::vector<std::string> files;  // every file read (for depfiles)
  bool header_pragmas = false;     // headers hold OmpSs pragmas the compiler will also see
  bool cuda = false;  // device(cuda) task functions: compile with the CUDA toolkit, link cudart
  // -include arguments whose translated text the output holds (forced_includes).
  std::vector<std::string> forced_includes;
};

// Returns 0 on success, 1 when the source or a pragma is wrong (diagnostics
// were printed in the compiler's file:line:col: error: format).
int translate(const TranslateOptions& opts, TranslateResult& result);

}  // namespace joulecc
