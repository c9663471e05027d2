// What the translator's parse must see besides the user's flags (driver.hpp,
// complete_parse_flags): the compiler wrapper's include directories, joule's
// headers and the compiler's default C++ standard.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "driver.hpp"

namespace joulecc {

namespace {

// Compiler wrappers (mpicc, ...) add include directories the translator must
// see too: ask the compiler for its search list and keep the non-standard ones.
std::vector<std::string> wrapper_include_dirs(const std::string& compiler, bool cxx) {
  static const char* const plain[] = {"gcc", "g++", "cc", "c++", "clang", "clang++"};
  std::string name = base_of(compiler);
  for (const char* p : plain) {
    std::string n(p);
    if (name == n || (name.rfind(n + "-", 0) == 0 &&
                      name.find_first_not_of("0123456789.", n.size() + 1) == std::string::npos))
      return {};
  }
  std::string cmd = "'" + compiler + "' -E -v -x " + (cxx ? "c++" : "c") + " /dev/null 2>&1";
  std::vector<std::string> dirs;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return dirs;
  char line[4096];
  bool in_list = false;
  while (fgets(line, sizeof(line), p)) {
    std::string l(line);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    if (l.find("search starts here") != std::string::npos)
      in_list = true;
    else if (l.find("End of search list") != std::string::npos)
      in_list = false;
    else if (in_list && !l.empty() && l[0] == ' ') {
      std::string d = l.substr(l.find_first_not_of(' '));
      bool standard = d == "/usr/include" || d == "/usr/local/include" ||
                      d.rfind("/usr/include/", 0) == 0 || d.find("/gcc/") != std::string::npos ||
                      d.find("/llvm") != std::string::npos ||
                      d.find("/clang/") != std::string::npos;
      if (!standard) dirs.push_back(d);
    }
  }
  pclose(p);
  return dirs;
}

// The compiler's default C++ standard, as a -std flag for the translator's
// parse (g++ 12 defaults to gnu++17, Clang 14 to gnu++14: headers differ).
std::string default_cxx_std(const std::string& compiler) {
  std::string cmd = "'" + compiler + "' -dM -E -x c++ /dev/null 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {};
  char line[512];
  long v = 0;
  while (fgets(line, sizeof(line), p))
    if (std::strncmp(line, "#define __cplusplus ", 20) == 0)
      v = std::strtol(line + 20, nullptr, 10);
  pclose(p);
  if (v == 0) return {};
  if (v <= 201103L) return "-std=gnu++11";  // C++98 compilers: see raise_cxx98
  if (v <= 201402L) return "-std=gnu++14";
  if (v <= 201703L) return "-std=gnu++17";
  if (v <= 202002L) return "-std=gnu++20";
  return "-std=gnu++2b";
}

}  // namespace

// joule's <omp.h> directory (<include>/joule/omp), placed before every other
// include directory so that it wins over the compiler's own omp.h; none when
// the compiler runs OpenMP (-fopenmp): libgomp/libomp then answer omp_*.
// joule's <nanos6.h> directory (<include>/joule/nanos6) comes first in both
// cases: OmpSs-2 programs include <nanos6.h> and <nanos6/debug.h>.
std::vector<std::string> omp_include_flags(const Paths& paths, bool openmp) {
  std::vector<std::string> out;
  struct stat st;
  for (const std::string& d : paths.include_dirs)
    if (stat((d + "/joule/nanos6/nanos6.h").c_str(), &st) == 0)
      out.push_back("-I" + d + "/joule/nanos6");
  if (openmp) return out;
  for (const std::string& d : paths.include_dirs) {
    if (stat((d + "/joule/omp/omp.h").c_str(), &st) == 0) out.push_back("-I" + d + "/joule/omp");
  }
  return out;
}

// What the compile sees besides the user's flags, the translator's parse must
// see too: the wrapper's include directories, joule's headers (the compiler
// gets them as -I) and the compiler's default C++ standard.
void complete_parse_flags(DriverPlan& p, const Paths& paths) {
  bool cxx = false;
  for (int l : p.source_lang) cxx = cxx || l == 1;
  for (const std::string& d : wrapper_include_dirs(p.compiler, cxx)) {
    p.parse_flags.push_back("-isystem");
    p.parse_flags.push_back(d);
  }
  std::vector<std::string> omp = omp_include_flags(paths, p.openmp);
  p.parse_flags.insert(p.parse_flags.begin(), omp.begin(), omp.end());
  for (const std::string& d : paths.include_dirs) p.parse_flags.push_back("-I" + d);
  bool has_std = false;
  for (const std::string& f : p.parse_flags) has_std = has_std || f.rfind("-std=", 0) == 0;
  if (cxx && !has_std) {
    std::string std_flag = default_cxx_std(p.compiler);
    if (!std_flag.empty()) p.parse_flags.push_back(std_flag);
  }
}

}  // namespace joulecc
