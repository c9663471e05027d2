// The driver's plan (driver.hpp, plan_driver): what joulecc does with a
// compiler command line, and the arguments that link joule.
#include <algorithm>
#include <filesystem>
#include <set>

#include "driver.hpp"

namespace joulecc {

std::string base_of(const std::string& p) {
  std::size_t k = p.find_last_of('/');
  return k == std::string::npos ? p : p.substr(k + 1);
}

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

}  // namespace

namespace {

// joulecc's own options; false for any other argument.
bool own_option(const std::string& a, DriverPlan& p) {
  if (a == "--keep")
    p.keep = true;
  else if (a == "--joule-E")
    p.print = true;
  else if (a == "--joule-verbose")
    p.verbose = true;
  else if (a == "--joule-no-rpath")
    p.rpath = false;
  else
    return false;
  return true;
}

// One argument after the compiler's name (i moves past a value it takes):
// joulecc's own and foreign options anywhere, the sources, and the flags the
// translator's parse needs. lang: the language of the last -x.
void compiler_arg(const std::vector<std::string>& in, std::size_t& i, DriverPlan& p,
                  std::string& lang, bool cxx_compiler) {
  const std::string& a = in[i];
  if (own_option(a, p) || foreign_flag(a, p)) return;
  // Clang's nesting limit for joulecc's own parse; gcc has none and does
  // not know the flag, so it goes to the translator only.
  if (a.rfind("-fbracket-depth=", 0) == 0) {
    p.parse_flags.push_back(a);
    return;
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
    return;
  }
  if (!a.empty() && a[0] == '-') {
    if (parse_relevant(a)) p.parse_flags.push_back(a);
    return;
  }
  if (ends_with(a, ".cu") && (lang.empty() || lang == "none")) {
    p.cu_sources.push_back(p.args.size() - 1);
    return;
  }
  int k = source_kind(a, lang, cxx_compiler);
  if (k >= 0) {
    p.sources.push_back(p.args.size() - 1);
    p.source_lang.push_back(k);
  }
}

// What the whole command line decides: the C++ standard, the sources left
// alone, the defines and the mode's header the foreign flags imply.
void finish_plan(DriverPlan& p, bool cxx_compiler) {
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
}

}  // namespace

bool plan_driver(const std::vector<std::string>& given, DriverPlan& p, std::string& err) {
  const std::vector<std::string> in = expand_mercurium_passthrough(given);
  std::size_t i = 0;
  for (; i < in.size() && (in[i].rfind("--", 0) == 0 || in[i] == "-k" || in[i] == "-K"); ++i) {
    if (foreign_flag(in[i], p) || own_option(in[i], p)) continue;
    err = "unknown joulecc option '" + in[i] + "'";
    return false;
  }
  if (i >= in.size()) {
    err =
        "no compiler given (usage: joulecc [joulecc options] <compiler> [arguments] files...; see "
        "joulecc --help)";
    return false;
  }
  p.compiler = in[i++];
  bool cxx_compiler = base_of(p.compiler).find("++") != std::string::npos;
  std::string lang;
  for (; i < in.size(); ++i) compiler_arg(in, i, p, lang, cxx_compiler);
  finish_plan(p, cxx_compiler);
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

}  // namespace joulecc
