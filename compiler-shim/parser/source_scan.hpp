// Scanning source text between a pragma and what it applies to. Clang-free:
// unit-tested without libclang.
#pragma once

#include <string>

namespace joulecc {

// Offset of the first token at or after `from` (the end of a pragma):
// spaces, comments and preprocessor lines other than #pragma are skipped, so
// `#ifdef _OMPSS` / pragma / `#endif` / function reaches the function. After
// an `#else`/`#elif` the rest of the conditional is skipped (the pragma was in
// the active branch).
unsigned next_token(const std::string& buf, unsigned from);

}  // namespace joulecc
