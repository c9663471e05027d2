// The flags of the compilers joulecc stands in for: Mercurium (mcc, mcxx;
// `mcc --help` and its profile flags) and the OmpSs-2 Clang (-fompss-2...).
// Each is mapped to what it means here or dropped; anything else reaches the
// compiler, so a misspelt flag still fails there (docs/porting-ompss.md,
// "Every flag").
#include <set>

#include "driver.hpp"

namespace joulecc {
namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Mercurium options that steer Mercurium itself (its phases, its files, its
// Fortran front end, its configuration): nothing to do here.
bool dropped_mercurium(const std::string& a) {
  static const std::set<std::string> exact = {"-k",
                                              "--keep-files",
                                              "-K",
                                              "--keep-all-files",
                                              "--line-markers",
                                              "--nanos6",
                                              "--nanox",
                                              "--instrument",
                                              "--instrumentation",
                                              "--no-openmp",
                                              "--openmp",
                                              "--openmp-lint",
                                              "--pp-stdout",
                                              "--pp",
                                              "--fpp",
                                              "--no-whole-file",
                                              "--disable-gxx-traits",
                                              "--do-not-unload-phases",
                                              "--hlt",
                                              "--simd",
                                              "--fpga",
                                              "--opencl",
                                              "--enable-ms-builtins",
                                              "--enable-intel-intrinsics",
                                              "--enable-intel-builtins-syntax",
                                              "--enable-intel-vector-types",
                                              "--disable-intrinsics",
                                              "--disable-sizeof",
                                              "--disable-locking",
                                              "--iso-c-FloatN",
                                              "--typecheck",
                                              "--debug-flags",
                                              "--check-dates",
                                              "--pass-through",
                                              "--instantiate",
                                              "--parallel",
                                              "--do-not-warn-config",
                                              "--do-not-wrap-modules",
                                              "--free",
                                              "--fixed",
                                              "--upc",
                                              "--copy-deps",
                                              "--no-copy-deps",
                                              "--task-reductions"};
  static const char* const prefixes[] = {"--variable=",
                                         "--debug-flags=",
                                         "--profile=",
                                         "--config-dir=",
                                         "--config-file=",
                                         "--env=",
                                         "--pp=",
                                         "--fpp=",
                                         "--Wx:",
                                         "--output-dir=",
                                         "--cc=",
                                         "--cxx=",
                                         "--cpp=",
                                         "--ld=",
                                         "--fc=",
                                         "--fpc=",
                                         "--native-vendor=",
                                         "--std=",
                                         "--upc=",
                                         "--opencl-build-opts=",
                                         "--width=",
                                         "--fixed-form-length=",
                                         "--sentinels=",
                                         "--disable-intrinsics=",
                                         "--integer-kind=",
                                         "--real-kind=",
                                         "--double-kind=",
                                         "--logical-kind=",
                                         "--character-kind=",
                                         "--fortran-array-descriptor=",
                                         "--fortran-name-mangling=",
                                         "--search-includes=",
                                         "--search-modules=",
                                         "--module-out-pattern=",
                                         "--vector-flavor="};
  if (exact.count(a)) return true;
  for (const char* p : prefixes)
    if (starts_with(a, p)) return true;
  return false;
}

// The OmpSs-2 Clang's runtime choice defines a macro naming it, as that Clang does.
void llvm_runtime(const std::string& a, DriverPlan& p) {
  const std::string rt = a.substr(std::string("-fompss-2=").size());
  if (rt == "libnanos6") p.defines.push_back("-D_OMPSS_2_NANOS6=1");
  if (rt == "libnodes") p.defines.push_back("-D_OMPSS_2_NODES=1");
}

}  // namespace

bool foreign_flag(const std::string& a, DriverPlan& p) {
  if (a == "--ompss" || a == "--ompss-2" || a == "--ompss-v2") {
    p.mode = a == "--ompss" ? 1 : 2;
    p.mode_include = p.mode == 2 ? "nanos6.h" : "nanos_omp.h";
    return true;
  }
  if (a == "-fompss-2" || starts_with(a, "-fompss-2=")) {  // the mode; nothing to link
    p.mode = 2;
    if (a.size() > 9) llvm_runtime(a, p);
    return true;
  }
  if (a == "-fdo-not-use-ompss-2-runtime" || a == "-fdo-not-use-nanos6")
    return true;        // joule is the runtime the translation calls: it is always linked
  if (a == "--cuda") {  // Mercurium's CUDA support: here, linking the CUDA runtime
    p.cuda = true;
    return true;
  }
  if (a == "--do-not-process-file") {  // every source goes to the compiler untranslated
    p.process_files = false;
    return true;
  }
  if (a == "--verbose" || a == "--v") {
    p.verbose = true;
    return true;
  }
  if (a == "--debug") {  // Mercurium's debug profile flag: -g for the native compiler
    p.args.push_back("-g");
    return true;
  }
  if (a == "-y") {  // Mercurium: parse, compile nothing
    p.args.push_back("-fsyntax-only");
    p.link = false;
    return true;
  }
  return dropped_mercurium(a);
}

// Mercurium's --W<tools>,a,b (tools among p preprocessor, n native compiler,
// l/r/L linker, s Fortran prescanner) and --Xcompiler a give options to the
// tools it runs: here they are the compiler's own (joulecc's compiler
// preprocesses, compiles and links). Only-prescanner ones are dropped.
std::vector<std::string> expand_mercurium_passthrough(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::string& a = in[i];
    if (a == "--Xcompiler" && i + 1 < in.size()) {
      out.push_back(in[++i]);
      continue;
    }
    const std::size_t comma = a.find(',');
    const bool tools = starts_with(a, "--W") && comma != std::string::npos && comma > 3 &&
                       a.find_first_not_of("pnlrLs", 3) == comma;
    if (!tools) {
      out.push_back(a);
      continue;
    }
    if (a.find_first_not_of('s', 3) == comma) continue;  // the Fortran prescanner only
    for (std::size_t b = comma + 1; b <= a.size();) {
      std::size_t e = a.find(',', b);
      if (e == std::string::npos) e = a.size();
      if (e > b) out.push_back(a.substr(b, e - b));
      b = e + 1;
    }
  }
  return out;
}

}  // namespace joulecc
