// The preprocessor's side of the front end (clang_frontend.cpp): where the
// OmpSs pragmas are (Clang ignores them), the #includes and the files they
// entered, and the pragma-line macros it rewrites as it goes.
#pragma once

#include <clang/Basic/SourceLocation.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace joulecc {

struct PragmaSeen {
  clang::FileID fid;
  unsigned offset;
  // _Pragma("...") (also from a macro): the destringized text and the end of
  // the macro invocation (or of the _Pragma(...) itself) that produced it.
  std::string text;
  unsigned end = 0;
  // A _Pragma("...") written with its string in a macro's body: where.
  clang::FileID spell_fid;
  unsigned spell_off = 0, spell_end = 0;
};

// Escapes a directive's text for a string literal.
std::string string_literal(const std::string& t);

// An #include and the file it found (for headers joulecc translates).
struct IncludeSeen {
  clang::SourceLocation name_begin, name_end;  // the "file.h" or <file.h> token (or the macro)
  clang::SourceLocation at;                    // the file's include location (SourceManager's)
  std::string path;                            // absolute path of the file found
  std::string spelled;                         // the name as written (-include's argument)
  bool angled = false;
  bool macros_only = false;  // -imacros (`#__include_macros`): its text is dropped
};

// Records pragmas, includes and entered files into the vectors (which must
// outlive the preprocessor run) and rewrites pragma-line macros.
std::unique_ptr<clang::PPCallbacks> make_pragma_recorder(clang::Preprocessor& pp,
                                                         std::vector<PragmaSeen>& seen,
                                                         std::set<std::string>& macros,
                                                         std::vector<IncludeSeen>& includes,
                                                         std::vector<clang::FileID>& entered);

}  // namespace joulecc
