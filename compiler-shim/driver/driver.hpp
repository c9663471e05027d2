// joulecc's command lines: the compiler driver (`joulecc gcc -O2 x.c -o x`)
// and the translator alone (`joulecc --translate x.c -o x.joule.c -- -I...`).
#pragma once

#include <string>
#include <vector>

namespace joulecc {

// Where joule's headers, libraries and Clang's resource directory are.
struct Paths {
  std::vector<std::string> include_dirs;
  std::vector<std::string> lib_dirs;
  std::string resource_dir;
};
Paths find_paths(const char* argv0);

int driver_main(const std::vector<std::string>& args, const Paths& paths);
int translate_main(const std::vector<std::string>& args, const Paths& paths);

// What the driver does with a compiler command line (exposed for tests).
struct DriverPlan {
  std::string compiler;
  std::vector<std::string> args;         // the compiler's arguments, sources included
  std::vector<std::size_t> sources;      // indices into args of C/C++ sources
  std::vector<int> source_lang;          // 0 C, 1 C++ for each source
  std::vector<std::size_t> cu_sources;   // indices into args of .cu sources (nvcc compiles them)
  bool cuda = false;                     // --cuda: link the CUDA runtime (a link of objects only)
  std::vector<std::string> parse_flags;  // flags the translator needs (-I, -D, -std, ...)
  bool link = true;
  bool openmp = false;
  bool keep = false;
  bool print = false;  // --joule-E: print the translated sources
  bool verbose = false;
  bool rpath = true;  // --joule-no-rpath: no -Wl,-rpath for joule's libdir
  int mode = 0;       // 0 auto, 1 --ompss, 2 --ompss-2
  // The header the last Mercurium mode flag includes in every source, as
  // Mercurium did: nanos6.h (--ompss-2), nanos_omp.h (--ompss, Nanos++).
  std::string mode_include;
  bool process_files = true;         // Mercurium's --do-not-process-file: translate nothing
  std::vector<std::string> defines;  // -D flags the foreign flags imply (-fompss-2=libnanos6)
};
bool plan_driver(const std::vector<std::string>& args, DriverPlan& plan, std::string& err);

// Mercurium's and the OmpSs-2 Clang's flags (foreign_flags.cpp): true when
// `a` is one, applied to plan (mapped or dropped).
bool foreign_flag(const std::string& a, DriverPlan& plan);
// Mercurium's pass-through options (--Wn,a,b --Xcompiler a ...) as the
// compiler arguments they carry.
std::vector<std::string> expand_mercurium_passthrough(const std::vector<std::string>& in);

// Runs cmd (printed first when verbose); its exit status, 127 when it cannot start.
int run_command(const std::vector<std::string>& cmd, bool verbose);

// True for the directories the dynamic loader searches anyway (/lib, /usr/lib,
// their lib64/lib32 variants and multiarch subdirectories such as
// /usr/lib/x86_64-linux-gnu): linking with a library there needs no run path.
bool is_system_lib_dir(const std::string& dir);

// The arguments that link joule: -L and, unless plan.rpath is off or the
// directory is a system one, -Wl,-rpath for each of paths.lib_dirs; then the libraries.
std::vector<std::string> link_args(const DriverPlan& plan, const Paths& paths);

// ---- between the driver's files

// The file name of a path.
std::string base_of(const std::string& p);
// -I options for joule's <nanos6.h> and <omp.h> (parse_flags.cpp).
std::vector<std::string> omp_include_flags(const Paths& paths, bool openmp);
// The translator's parse flags completed (parse_flags.cpp).
void complete_parse_flags(DriverPlan& p, const Paths& paths);

}  // namespace joulecc
