// The compiler driver: translate each C/C++ source, run the user's compiler
// on the translations with its own arguments, link joule.
#include "driver.hpp"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "../translator/translate.hpp"
#include "cuda_toolkit.hpp"

extern char** environ;

namespace joulecc {
namespace {

bool ends_with(const std::string& s, const std::string& e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

// 0: C, 1: C++, -1: not a source.
int source_kind(const std::string& a, const std::string& forced_lang, bool cxx_compiler) {
  if (!forced_lang.empty() && forced_lang != "none") {
    if (forced_lang == "c") return cxx_compiler ? 1 : 0;
    if (forced_lang == "c++") return 1;
    return -1;
  }
  if (ends_with(a, ".c")) return cxx_compiler ? 1 : 0;
  for (const char* e : {".cc", ".cpp", ".cxx", ".c++", ".C", ".cp", ".CPP"})
    if (ends_with(a, e)) return 1;
  return -1;
}

// Options whose value is the next argument.
bool takes_value(const std::string& a) {
  static const std::set<std::string> k = {"-o",           "-I",
                                          "-D",           "-U",
                                          "-include",     "-imacros",
                                          "-isystem",     "-iquote",
                                          "-idirafter",   "-x",
                                          "-MF",          "-MT",
                                          "-MQ",          "-L",
                                          "-Xlinker",     "-Xpreprocessor",
                                          "-Xassembler",  "-isysroot",
                                          "--sysroot",    "-target",
                                          "-T",           "-u",
                                          "-z",           "-e",
                                          "-arch",        "-aux-info",
                                          "--param",      "-iprefix",
                                          "-iwithprefix", "-iwithprefixbefore"};
  return k.count(a) != 0;
}

// Flags that change how the source parses, passed to the translator.
bool parse_relevant(const std::string& a) {
  static const char* const prefixes[] = {"-I",
                                         "-D",
                                         "-U",
                                         "-std=",
                                         "-isystem",
                                         "-iquote",
                                         "-idirafter",
                                         "-include",
                                         "-imacros",
                                         "--sysroot",
                                         "-isysroot",
                                         "-march=",
                                         "-mtune=",
                                         "-msse",
                                         "-mavx",
                                         "-mfma",
                                         "-O",
                                         "-funsigned-char",
                                         "-fsigned-char",
                                         "-fno-exceptions",
                                         "-fexceptions",
                                         "-fms-extensions",
                                         "-fgnu89-inline"};
  for (const char* p : prefixes)
    if (a.rfind(p, 0) == 0) return true;
  static const std::set<std::string> exact = {
      "-m32", "-m64", "-ansi", "-pthread", "-nostdinc", "-nostdinc++", "-ffreestanding"};
  return exact.count(a) != 0;
}

std::string dir_of(const std::string& p) {
  std::size_t k = p.find_last_of('/');
  if (k == std::string::npos) return ".";
  return k == 0 ? "/" : p.substr(0, k);
}

std::string base_of(const std::string& p) {
  std::size_t k = p.find_last_of('/');
  return k == std::string::npos ? p : p.substr(k + 1);
}

}  // namespace

int run_command(const std::vector<std::string>& cmd, bool verbose) {
  if (verbose) {
    for (const std::string& a : cmd) std::cerr << a << ' ';
    std::cerr << '\n';
  }
  std::vector<char*> argv;
  for (const std::string& a : cmd) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
    std::cerr << "joulecc: error: cannot run '" << cmd[0] << "': " << std::strerror(errno) << '\n';
    return 127;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

namespace {

// Creates the missing directories above `file` (as the build tools expect of
// a command told to write there); false with the reason when that fails.
bool make_parent_dirs(const std::string& file, std::string& why) {
  std::filesystem::path parent = std::filesystem::path(file).parent_path();
  if (parent.empty()) return true;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) why = ec.message();
  return !ec;
}

// A make-style depfile: `target: files...`. Each file is written as its real
// path: Clang reaches libstdc++ through paths such as
// /../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/vector, which the
// kernel resolves through the /lib symlink but CMake's Makefile generator
// normalises lexically into a file that does not exist (always out of date).
bool write_depfile(const std::string& depfile, const std::string& target,
                   const std::vector<std::string>& files) {
  std::string why;
  if (!make_parent_dirs(depfile, why)) {
    std::cerr << "joulecc --translate: cannot write '" << depfile << "': " << why << '\n';
    return false;
  }
  std::ofstream d(depfile);
  d << target << ":";
  std::set<std::string> seen;
  for (const std::string& f : files) {
    std::error_code ec;
    std::string real = std::filesystem::canonical(f, ec).string();
    if (ec) real = f;
    if (!seen.insert(real).second) continue;
    std::string esc;
    for (char c : real) {
      if (c == ' ') esc += '\\';
      esc += c;
    }
    d << " \\\n  " << esc;
  }
  d << "\n";
  if (!d) std::cerr << "joulecc --translate: cannot write '" << depfile << "'\n";
  return static_cast<bool>(d);
}

void remove_tree(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

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

// joulecc's C++ tasks are lambdas (C++11): a C++98/03 build is parsed and
// compiled as C++11, which accepts C++98 code (docs/porting-ompss.md, 1.).
void raise_cxx98(DriverPlan& p) {
  static const std::pair<const char*, const char*> up[] = {{"-std=c++98", "-std=c++11"},
                                                           {"-std=c++03", "-std=c++11"},
                                                           {"-std=gnu++98", "-std=gnu++11"},
                                                           {"-std=gnu++03", "-std=gnu++11"}};
  for (std::vector<std::string>* v : {&p.args, &p.parse_flags})
    for (std::string& a : *v)
      for (const auto& [from, to] : up)
        if (a == from) a = to;
}

// The -include options whose headers every translation holds (translated,
// in front of the source): the compile must not include them a second time.
void drop_forced_includes(std::vector<std::string>& args,
                          const std::vector<std::vector<std::string>>& held) {
  auto in_all = [&](const std::string& name) {
    for (const std::vector<std::string>& h : held)
      if (std::find(h.begin(), h.end(), name) == h.end()) return false;
    return !held.empty();
  };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-include" && i + 1 < args.size() && in_all(args[i + 1])) {
      ++i;
      continue;
    }
    if (args[i].size() > 8 && args[i].rfind("-include", 0) == 0 && in_all(args[i].substr(8)))
      continue;
    out.push_back(args[i]);
  }
  args = std::move(out);
}

}  // namespace

bool plan_driver(const std::vector<std::string>& given, DriverPlan& p, std::string& err) {
  const std::vector<std::string> in = expand_mercurium_passthrough(given);
  std::size_t i = 0;
  for (; i < in.size() && (in[i].rfind("--", 0) == 0 || in[i] == "-k" || in[i] == "-K"); ++i) {
    const std::string& a = in[i];
    if (foreign_flag(a, p))
      continue;
    else if (a == "--keep")
      p.keep = true;
    else if (a == "--joule-E")
      p.print = true;
    else if (a == "--joule-verbose")
      p.verbose = true;
    else if (a == "--joule-no-rpath")
      p.rpath = false;
    else {
      err = "unknown joulecc option '" + a + "'";
      return false;
    }
  }
  if (i >= in.size()) {
    err =
        "no compiler given (usage: joulecc [joulecc options] <compiler> [arguments] files...; see "
        "joulecc --help)";
    return false;
  }
  p.compiler = in[i++];
  std::string cname = base_of(p.compiler);
  bool cxx_compiler = cname.find("++") != std::string::npos;
  std::string lang;
  for (; i < in.size(); ++i) {
    const std::string& a = in[i];
    if (a == "--keep" || a == "--joule-E" || a == "--joule-verbose" || a == "--joule-no-rpath") {
      p.keep |= a == "--keep";  // joulecc's own options are accepted anywhere
      p.print |= a == "--joule-E";
      p.verbose |= a == "--joule-verbose";
      p.rpath = p.rpath && a != "--joule-no-rpath";
      continue;
    }
    if (foreign_flag(a, p)) continue;
    // Clang's nesting limit for joulecc's own parse; gcc has none and does
    // not know the flag, so it goes to the translator only.
    if (a.rfind("-fbracket-depth=", 0) == 0) {
      p.parse_flags.push_back(a);
      continue;
    }
    p.args.push_back(a);
    if (a == "-c" || a == "-S" || a == "-E" || a == "-M" || a == "-MM" || a == "-fsyntax-only")
      p.link = false;
    if (a == "-fopenmp" || a.rfind("-fopenmp=", 0) == 0) p.openmp = true;
    if (a == "-x" && i + 1 < in.size())
      lang = in[i + 1];
    else if (a.rfind("-x", 0) == 0 && a.size() > 2)
      lang = a.substr(2);
    if (takes_value(a) && i + 1 < in.size()) {
      if (parse_relevant(a)) {
        p.parse_flags.push_back(a);
        p.parse_flags.push_back(in[i + 1]);
      }
      p.args.push_back(in[++i]);
      continue;
    }
    if (!a.empty() && a[0] == '-') {
      if (parse_relevant(a)) p.parse_flags.push_back(a);
      continue;
    }
    if (ends_with(a, ".cu") && (lang.empty() || lang == "none")) {
      p.cu_sources.push_back(p.args.size() - 1);
      continue;
    }
    int k = source_kind(a, lang, cxx_compiler);
    if (k >= 0) {
      p.sources.push_back(p.args.size() - 1);
      p.source_lang.push_back(k);
    }
  }
  if (cxx_compiler || std::count(p.source_lang.begin(), p.source_lang.end(), 1) > 0) raise_cxx98(p);
  if (!p.process_files) {  // --do-not-process-file: the compiler gets the sources as they are
    p.sources.clear();
    p.source_lang.clear();
  }
  for (std::vector<std::string>* v : {&p.args, &p.parse_flags})
    v->insert(v->end(), p.defines.begin(), p.defines.end());
  // After the sources (their indices stand): the compiler applies -include
  // to each source wherever it is on the line.
  if (!p.mode_include.empty() && !p.sources.empty())
    for (std::vector<std::string>* v : {&p.args, &p.parse_flags}) {
      v->push_back("-include");
      v->push_back(p.mode_include);
    }
  return true;
}

bool is_system_lib_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(dir, ec);
  if (ec) p = std::filesystem::path(dir).lexically_normal();
  std::string d = p.string();
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  for (const char* base : {"/lib", "/usr/lib"}) {
    std::string b(base);
    if (d == b || d == b + "64" || d == b + "32") return true;
    // A multiarch directory: /usr/lib/<cpu>-linux-<abi> (x86_64-linux-gnu, arm-linux-gnueabihf,
    // ...).
    if (d.rfind(b + "/", 0) == 0) {
      std::string sub = d.substr(b.size() + 1);
      if (sub.find('/') == std::string::npos && sub.find("-linux-") != std::string::npos)
        return true;
    }
  }
  return false;
}

std::vector<std::string> link_args(const DriverPlan& plan, const Paths& paths) {
  std::vector<std::string> out;
  for (const std::string& d : paths.lib_dirs) {
    out.push_back("-L" + d);
    // As MPI's wrappers do: the program finds joule where it was linked, without LD_LIBRARY_PATH.
    if (plan.rpath && !is_system_lib_dir(d)) out.push_back("-Wl,-rpath," + d);
  }
  out.push_back("-ljoule_ompss");
  // With -fopenmp the compiler's OpenMP code runs on joule too: libjoule-omp
  // comes before the libgomp/libomp that the compiler adds last, so its
  // GOMP_* and omp_* definitions win.
  out.push_back(plan.openmp ? "-ljoule-omp" : "-ljoule_omp_compat");
  out.push_back("-ljoule");
  out.push_back("-lpthread");
  return out;
}

int driver_main(const std::vector<std::string>& args, const Paths& paths) {
  DriverPlan p;
  std::string err;
  if (!plan_driver(args, p, err)) {
    std::cerr << "joulecc: error: " << err << '\n';
    return 2;
  }
  char tmpl[] = "/tmp/joulecc.XXXXXX";
  std::string tmp;
  if (const char* t = std::getenv("TMPDIR"); t && *t) {
    std::string s = std::string(t) + "/joulecc.XXXXXX";
    std::vector<char> buf(s.begin(), s.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data())) tmp = buf.data();
  }
  if (tmp.empty()) {
    if (!mkdtemp(tmpl)) {
      std::cerr << "joulecc: error: cannot create a temporary directory\n";
      return 1;
    }
    tmp = tmpl;
  }
  std::vector<std::string> cmd = {p.compiler};
  std::set<std::string> quote_dirs;
  if (!p.sources.empty()) complete_parse_flags(p, paths);
  int rc = 0;
  bool header_pragmas = false;
  std::vector<std::vector<std::string>> forced;
  std::vector<std::string> cuda_users, cuda_compile, cuda_link;
  for (std::size_t s = 0; s < p.sources.size() && rc == 0; ++s) {
    std::string src = p.args[p.sources[s]];
    TranslateOptions o;
    o.input = src;
    o.flags = p.parse_flags;
    o.lang = p.source_lang[s];
    o.openmp = p.openmp;
    o.mode = p.mode;
    o.resource_dir = paths.resource_dir;
    o.forced_includes = true;
    TranslateResult r;
    if (translate(o, r) != 0) {
      rc = 1;
      break;
    }
    header_pragmas = header_pragmas || r.header_pragmas;
    if (r.cuda) cuda_users.push_back(src);
    forced.push_back(r.forced_includes);
    if (p.print) {
      std::cout << r.output;
      continue;
    }
    std::string dir = tmp + "/" + std::to_string(s);
    mkdir(dir.c_str(), 0700);
    std::string out = dir + "/" + base_of(src);
    std::ofstream(out, std::ios::binary) << r.output;
    if (p.keep) {
      std::string b = base_of(src);
      std::size_t dot = b.find_last_of('.');
      std::string kept = (dot == std::string::npos ? b : b.substr(0, dot)) + ".joule" +
                         (dot == std::string::npos ? "" : b.substr(dot));
      std::ofstream(kept, std::ios::binary) << r.output;
      std::cerr << "joulecc: kept " << kept << '\n';
    }
    quote_dirs.insert(dir_of(src));
    p.args[p.sources[s]] = out;
  }
  // -c with .cu files only: nvcc writes every object, the compiler has nothing to do.
  const bool only_cu = !p.link && p.sources.empty() && !p.cu_sources.empty();
  if (rc == 0 && !p.print) rc = cuda_step(p, paths, tmp, cuda_users, cuda_compile, cuda_link);
  if (rc == 0 && !p.print && !only_cu) {
    for (std::string& f : omp_include_flags(paths, p.openmp)) cmd.push_back(std::move(f));
    for (std::string& f : cuda_compile) cmd.push_back(std::move(f));
    for (const std::string& d : quote_dirs) {
      cmd.push_back("-iquote");
      cmd.push_back(d);
    }
    for (const std::string& d : paths.include_dirs) cmd.push_back("-I" + d);
    drop_forced_includes(p.args, forced);
    for (const std::string& a : p.args) cmd.push_back(a);
    // The OmpSs pragmas left in headers were handled: g++ <= 12 ignores the
    // translation's `#pragma GCC diagnostic` for them, so say it here.
    if (header_pragmas) cmd.push_back("-Wno-unknown-pragmas");
    if (p.link) {
      for (std::string& a : link_args(p, paths)) cmd.push_back(std::move(a));
      for (std::string& a : cuda_link) cmd.push_back(std::move(a));
    }
    rc = run_command(cmd, p.verbose);
  }
  remove_tree(tmp);
  return rc;
}

int translate_main(const std::vector<std::string>& args, const Paths& paths) {
  TranslateOptions o;
  o.resource_dir = paths.resource_dir;
  std::string output = "-", depfile, dep_target;
  std::size_t i = 0;
  auto value = [&](std::string& v) {
    if (i + 1 >= args.size()) return false;
    v = args[++i];
    return true;
  };
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool ok = true;
    if (a == "--") {
      o.flags.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (a == "-o")
      ok = value(output);
    else if (a == "--line-name")
      ok = value(o.line_name);
    else if (a == "--depfile")
      ok = value(depfile);
    else if (a == "--dep-target")
      ok = value(dep_target);
    else if (a == "--lang=c")
      o.lang = 0;
    else if (a == "--lang=c++")
      o.lang = 1;
    else if (a == "--openmp")
      o.openmp = true;
    else if (a == "--ompss")
      o.mode = 1;
    else if (a == "--ompss-2")
      o.mode = 2;
    else if (a.rfind("-", 0) == 0) {
      std::cerr << "joulecc --translate: unknown option '" << a << "'\n";
      return 2;
    } else if (o.input.empty())
      o.input = a;
    else
      ok = false;
    if (!ok) {
      std::cerr << "joulecc --translate: bad arguments (usage: joulecc --translate [-o out] "
                   "[--line-name name] [--lang=c|c++] [--openmp] [--ompss|--ompss-2] [--depfile f "
                   "--dep-target t] input -- compiler-flags...)\n";
      return 2;
    }
  }
  if (o.input.empty()) {
    std::cerr << "joulecc --translate: no input file\n";
    return 2;
  }
  // joule's headers last: a target's own include directories do not list them
  // (they come from the joule::ompss it links), the compile sees them anyway.
  std::vector<std::string> omp = omp_include_flags(paths, o.openmp);
  o.flags.insert(o.flags.begin(), omp.begin(), omp.end());
  for (const std::string& d : paths.include_dirs) o.flags.push_back("-I" + d);
  TranslateResult r;
  int rc = translate(o, r);
  if (rc != 0) {
    if (output != "-") std::remove(output.c_str());  // no stale output after an error
    return rc;
  }
  if (output == "-") {
    std::cout << r.output;
  } else {
    std::string part = output + ".part";
    std::string why;
    if (!make_parent_dirs(output, why) || !(std::ofstream(part, std::ios::binary) << r.output) ||
        std::rename(part.c_str(), output.c_str()) != 0) {
      if (why.empty()) why = std::strerror(errno);
      std::cerr << "joulecc --translate: cannot write '" << output << "': " << why << '\n';
      std::remove(part.c_str());
      return 1;
    }
  }
  if (!depfile.empty() &&
      !write_depfile(depfile, dep_target.empty() ? output : dep_target, r.files))
    return 1;
  return 0;
}

}  // namespace joulecc
