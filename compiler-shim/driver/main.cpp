// joulecc: `joulecc <compiler> [args] files...` or `joulecc --translate ...`.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "driver.hpp"
#include "joulecc_config.hpp"

namespace joulecc {
namespace {

bool exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

std::string exe_dir(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  std::string p = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string(argv0);
  std::size_t k = p.find_last_of('/');
  return k == std::string::npos ? "." : p.substr(0, k);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t b = 0;
  while (b <= s.size()) {
    std::size_t e = s.find(':', b);
    if (e == std::string::npos) e = s.size();
    if (e > b) out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

}  // namespace

// Installed layout: <prefix>/bin/joulecc with <prefix>/include and
// <prefix>/<libdir>; otherwise the build tree it was built in. Environment
// variables JOULECC_INCLUDE / JOULECC_LIBDIR (':'-separated) override.
Paths find_paths(const char* argv0) {
  Paths p;
  std::string dir = exe_dir(argv0);
  // Normalised: the library directory below it also becomes the programs' run path.
  std::error_code ec;
  std::string prefix = std::filesystem::weakly_canonical(dir + "/..", ec).string();
  if (ec) prefix = dir + "/..";
  if (exists(prefix + "/include/joule/ompss.h") && !exists(dir + "/CMakeFiles")) {
    p.include_dirs = {prefix + "/include"};
    p.lib_dirs = {prefix + "/" + JOULECC_INSTALL_LIBDIR};
  } else {
    p.include_dirs = split(JOULECC_BUILD_INCLUDE_DIRS);
    p.lib_dirs = split(JOULECC_BUILD_LIB_DIRS);
  }
  if (const char* e = std::getenv("JOULECC_INCLUDE")) p.include_dirs = split(e);
  if (const char* e = std::getenv("JOULECC_LIBDIR")) p.lib_dirs = split(e);
  std::vector<std::string> unique;
  for (const std::string& d : p.lib_dirs)
    if (std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(d);
  p.lib_dirs = unique;
  p.resource_dir = JOULECC_RESOURCE_DIR;
  if (const char* e = std::getenv("JOULECC_RESOURCE_DIR")) p.resource_dir = e;
  return p;
}

}  // namespace joulecc

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // joulecc-gcc, joulecc-g++, joulecc-mpicc...: links to joulecc named after
  // the compiler they run, one word for build systems that take a CC (mcc's role).
  std::string self = argv[0];
  self = self.substr(self.find_last_of('/') + 1);
  if (self.rfind("joulecc-", 0) == 0 && self.size() > 8) args.insert(args.begin(), self.substr(8));
  joulecc::Paths paths = joulecc::find_paths(argv[0]);
  if (!args.empty() && args[0] == "--translate") {
    args.erase(args.begin());
    return joulecc::translate_main(args, paths);
  }
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::printf(
        "usage: joulecc [options] <compiler> [args] files...\n"
        "       joulecc --translate [-o out] [--line-name n] [--lang=c|c++] [--openmp]\n"
        "               [--ompss|--ompss-2] [--depfile f --dep-target t] input -- flags...\n"
        "Translates OmpSs pragmas (#pragma oss / #pragma omp task ...) into calls to joule, then\n"
        "runs <compiler> (gcc, g++, clang, clang++, mpicc, ...) on the result and links joule.\n"
        "options:\n"
        "  --keep            keep the translated sources as <name>.joule.<ext> in the current\n"
        "                    directory\n"
        "  --joule-E         print the translated sources instead of compiling\n"
        "  --joule-verbose   print the compiler command\n"
        "  --joule-no-rpath  do not add -Wl,-rpath,<joule's libdir> when linking (it is added\n"
        "                    unless that is a system directory); the program then needs\n"
        "                    LD_LIBRARY_PATH or ldconfig to find libjoule\n"
        "  --ompss-2 / --ompss  define _OMPSS_2 (the default) or not\n"
        "  --cuda            link the CUDA runtime (for a link of objects only: .cu files and\n"
        "                    device(cuda) task functions link it anyway)\n"
        ".cu files are compiled by the CUDA toolkit's nvcc (-ccbin <compiler>); see\n"
        "docs/offload.md, \"joulecc: device(cuda) and ndrange\".\n"
        "Mercurium's and the OmpSs-2 Clang's flags are accepted and mapped or dropped (-k,\n"
        "--variable=..., --line-markers, -fompss-2[=...], ...; docs/porting-ompss.md, \"Every\n"
        "flag\"); --Wn,/--Wp,/--Wl,/--Xcompiler options go to the compiler; --ompss includes\n"
        "nanos_omp.h and --ompss-2 nanos6.h in every source. joulecc-gcc, joulecc-g++ (links\n"
        "to joulecc) run joulecc with the compiler their name gives.\n");
    return 0;
  }
  return joulecc::driver_main(args, paths);
}
