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

std::string dir_of(const std::string& p) {
  std::size_t k = p.find_last_of('/');
  if (k == std::string::npos) return ".";
  return k == 0 ? "/" : p.substr(0, k);
}

void remove_tree(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
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

// A private directory for the translations ($TMPDIR, else /tmp); "" when
// none can be made.
std::string make_temp_dir() {
  if (const char* t = std::getenv("TMPDIR"); t && *t) {
    std::string s = std::string(t) + "/joulecc.XXXXXX";
    std::vector<char> buf(s.begin(), s.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data())) return buf.data();
  }
  char tmpl[] = "/tmp/joulecc.XXXXXX";
  return mkdtemp(tmpl) ? std::string(tmpl) : std::string();
}

// What translating the sources leaves for the compile.
struct Translated {
  std::set<std::string> quote_dirs;  // the sources' directories (their "..." includes)
  bool header_pragmas = false;
  std::vector<std::vector<std::string>> forced;  // each source's -include headers it holds
  std::vector<std::string> cuda_users;           // sources with device(cuda) tasks
};

// --keep: the translation next to the build, as x.joule.c.
void keep_translation(const std::string& src, const std::string& text) {
  std::string b = base_of(src);
  std::size_t dot = b.find_last_of('.');
  std::string kept = (dot == std::string::npos ? b : b.substr(0, dot)) + ".joule" +
                     (dot == std::string::npos ? "" : b.substr(dot));
  std::ofstream(kept, std::ios::binary) << text;
  std::cerr << "joulecc: kept " << kept << '\n';
}

// Translates source s into tmp/<s>/ and gives the compile the translation
// in its place (--joule-E: prints it); false when the translator failed.
bool translate_source(DriverPlan& p, const Paths& paths, const std::string& tmp, std::size_t s,
                      Translated& t) {
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
  if (translate(o, r) != 0) return false;
  t.header_pragmas = t.header_pragmas || r.header_pragmas;
  if (r.cuda) t.cuda_users.push_back(src);
  t.forced.push_back(r.forced_includes);
  if (p.print) {
    std::cout << r.output;
    return true;
  }
  std::string dir = tmp + "/" + std::to_string(s);
  mkdir(dir.c_str(), 0700);
  std::string out = dir + "/" + base_of(src);
  std::ofstream(out, std::ios::binary) << r.output;
  if (p.keep) keep_translation(src, r.output);
  t.quote_dirs.insert(dir_of(src));
  p.args[p.sources[s]] = out;
  return true;
}

// The user's compiler over the translations, with joule's headers and, when
// it links, joule's libraries.
std::vector<std::string> compile_command(DriverPlan& p, const Paths& paths, Translated& t,
                                         std::vector<std::string>& cuda_compile,
                                         std::vector<std::string>& cuda_link) {
  std::vector<std::string> cmd = {p.compiler};
  for (std::string& f : omp_include_flags(paths, p.openmp)) cmd.push_back(std::move(f));
  for (std::string& f : cuda_compile) cmd.push_back(std::move(f));
  for (const std::string& d : t.quote_dirs) {
    cmd.push_back("-iquote");
    cmd.push_back(d);
  }
  for (const std::string& d : paths.include_dirs) cmd.push_back("-I" + d);
  drop_forced_includes(p.args, t.forced);
  for (const std::string& a : p.args) cmd.push_back(a);
  // The OmpSs pragmas left in headers were handled: g++ <= 12 ignores the
  // translation's `#pragma GCC diagnostic` for them, so say it here.
  if (t.header_pragmas) cmd.push_back("-Wno-unknown-pragmas");
  if (p.link) {
    for (std::string& a : link_args(p, paths)) cmd.push_back(std::move(a));
    for (std::string& a : cuda_link) cmd.push_back(std::move(a));
  }
  return cmd;
}

}  // namespace

int driver_main(const std::vector<std::string>& args, const Paths& paths) {
  DriverPlan p;
  std::string err;
  if (!plan_driver(args, p, err)) {
    std::cerr << "joulecc: error: " << err << '\n';
    return 2;
  }
  const std::string tmp = make_temp_dir();
  if (tmp.empty()) {
    std::cerr << "joulecc: error: cannot create a temporary directory\n";
    return 1;
  }
  if (!p.sources.empty()) complete_parse_flags(p, paths);
  int rc = 0;
  Translated t;
  for (std::size_t s = 0; s < p.sources.size() && rc == 0; ++s)
    if (!translate_source(p, paths, tmp, s, t)) rc = 1;
  std::vector<std::string> cuda_compile, cuda_link;
  // -c with .cu files only: nvcc writes every object, the compiler has nothing to do.
  const bool only_cu = !p.link && p.sources.empty() && !p.cu_sources.empty();
  if (rc == 0 && !p.print) rc = cuda_step(p, paths, tmp, t.cuda_users, cuda_compile, cuda_link);
  if (rc == 0 && !p.print && !only_cu)
    rc = run_command(compile_command(p, paths, t, cuda_compile, cuda_link), p.verbose);
  remove_tree(tmp);
  return rc;
}

}  // namespace joulecc
