// Finding the CUDA toolkit and running nvcc for joulecc's driver.
#include "cuda_toolkit.hpp"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

extern char** environ;

namespace joulecc {
namespace {

bool is_file(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A toolkit's root: bin/nvcc, the runtime header and the static runtime
// (lib64, or targets/<arch>/lib as the .run installer lays it out).
bool toolkit_at(const std::string& root, CudaToolkit& tk) {
  tk = {root, root + "/bin/nvcc", root + "/include", ""};
  if (access(tk.nvcc.c_str(), X_OK) != 0 || !is_file(tk.include_dir + "/cuda_runtime_api.h"))
    return false;
  for (const char* sub : {"/lib64", "/lib", "/targets/x86_64-linux/lib", "/targets/sbsa-linux/lib"})
    if (is_file(root + sub + "/libcudart_static.a")) {
      tk.lib_dir = root + sub;
      return true;
    }
  return false;
}

// Every nvcc on PATH, in order (a site may put a wrapper script first).
std::vector<std::string> nvccs_on_path() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::vector<std::string> out;
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && access((d + "/nvcc").c_str(), X_OK) == 0) out.push_back(d + "/nvcc");
  return out;
}

// What `cmd` prints on stdout and stderr (empty when it cannot run).
std::string output_of(const std::vector<std::string>& cmd) {
  int fd[2];
  if (pipe(fd) != 0) return {};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  std::vector<char*> argv;
  for (const std::string& a : cmd) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  const bool ok = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) == 0;
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; ok && (n = read(fd[0], buf, sizeof buf)) != 0;)
    if (n > 0)
      out.append(buf, static_cast<std::size_t>(n));
    else if (errno != EINTR)
      break;
  close(fd[0]);
  int status = 0;
  while (ok && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return out;
}

// The directories nvcc's dry run names after `key` (INCLUDES: -I, LIBRARIES:
// -L), quotes removed: the layout nvcc itself compiles with, whatever the
// packaging (the .run installer's targets/<arch>, Debian's /usr/lib).
std::vector<std::string> dryrun_dirs(const std::string& dry, const std::string& key,
                                     const std::string& flag) {
  std::vector<std::string> out;
  std::istringstream lines(dry);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#$ " + key + "=", 0) != 0) continue;
    std::istringstream words(line.substr(key.size() + 4));
    for (std::string w; words >> w;) {
      std::erase(w, '"');
      if (w.rfind(flag, 0) == 0 && w.size() > flag.size()) out.push_back(w.substr(flag.size()));
    }
  }
  return out;
}

// The toolkit behind an nvcc that is not in one (a wrapper script, a
// distribution's layout): its dry run says where it includes and links from.
bool toolkit_of(const std::string& nvcc, CudaToolkit& tk) {
  const std::string dry =
      output_of({nvcc, "-dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null"});
  tk = {"", nvcc, "", ""};
  for (const std::string& d : dryrun_dirs(dry, "INCLUDES", "-I"))
    if (tk.include_dir.empty() && is_file(d + "/cuda_runtime_api.h")) tk.include_dir = d;
  for (const std::string& d : dryrun_dirs(dry, "LIBRARIES", "-L"))
    if (tk.lib_dir.empty() && is_file(d + "/libcudart_static.a")) tk.lib_dir = d;
  std::error_code ec;
  tk.root = std::filesystem::canonical(tk.include_dir + "/..", ec).string();
  return !tk.include_dir.empty() && !tk.lib_dir.empty();
}

std::string base_name(const std::string& p) {
  std::size_t k = p.find_last_of('/');
  return k == std::string::npos ? p : p.substr(k + 1);
}

// The user's flags nvcc must see too: include paths, macros, optimisation,
// debug info, position independence and a C++ standard (a C one is the host
// compiler's business only: nvcc compiles .cu files as C++).
std::vector<std::string> nvcc_flags(const DriverPlan& p) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < p.args.size(); ++i) {
    const std::string& a = p.args[i];
    const bool pair =
        (a == "-I" || a == "-D" || a == "-U" || a == "-isystem") && i + 1 < p.args.size();
    if (pair) {
      out.push_back(a);
      out.push_back(p.args[++i]);
    } else if (a.rfind("-I", 0) == 0 || a.rfind("-D", 0) == 0 || a.rfind("-U", 0) == 0 ||
               a.rfind("-O", 0) == 0 || a == "-g" ||
               (a.rfind("-std=", 0) == 0 && a.find("++") != std::string::npos)) {
      out.push_back(a);
    } else if (a == "-fPIC" || a == "-fpic") {
      out.push_back("-Xcompiler");
      out.push_back(a);
    }
  }
  return out;
}

// The object a -c compile of src writes: -o's value, else <stem>.o here.
std::string object_for(const DriverPlan& p, const std::string& src, std::size_t nsources) {
  for (std::size_t i = 0; i + 1 < p.args.size(); ++i)
    if (p.args[i] == "-o" && nsources == 1) return p.args[i + 1];
  std::string b = base_name(src);
  return b.substr(0, b.size() - 3) + ".o";
}

}  // namespace

bool find_cuda_toolkit(CudaToolkit& tk, std::string& why) {
  std::string looked;
  for (const std::string& nvcc : nvccs_on_path()) {
    std::error_code ec;
    std::string root = std::filesystem::canonical(nvcc, ec).parent_path().parent_path().string();
    if (!ec && toolkit_at(root, tk)) {
      tk.nvcc = nvcc;
      return true;
    }
    if (toolkit_of(nvcc, tk)) return true;
    looked += "nvcc on PATH (" + nvcc + ") is not in a CUDA toolkit; ";
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* v = std::getenv(var);
    if (!v || !*v) continue;
    if (toolkit_at(v, tk)) return true;
    // Set by the user: a wrong one is an error, not a reason to look elsewhere.
    why = looked + std::string(var) + "=" + v + " is not a CUDA toolkit (bin/nvcc, " +
          "include/cuda_runtime_api.h and lib64/libcudart_static.a)";
    return false;
  }
  if (toolkit_at("/usr/local/cuda", tk)) return true;
  why = "no CUDA toolkit found (" +
        (looked.empty() ? std::string("nvcc is not on PATH; ") : looked) +
        "CUDA_HOME and CUDA_PATH are unset, and /usr/local/cuda holds none: a toolkit has nvcc, "
        "include/cuda_runtime_api.h and libcudart_static.a); install the toolkit or set CUDA_HOME";
  return false;
}

std::vector<std::string> cuda_link_args(const CudaToolkit& tk) {
  // nvcc's objects need the C++ runtime too, which a link by a C compiler lacks.
  return {"-L" + tk.lib_dir, "-lcudart_static", "-ldl", "-lrt", "-lpthread", "-lstdc++"};
}

std::string cuda_source_pragmas(const std::string& path) {
  std::ifstream in(path);
  std::string out, line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream w(line);
    std::string hash, kw, prefix;
    w >> hash;
    if (hash == "#")
      w >> kw;
    else if (hash.rfind("#", 0) == 0)
      kw = hash.substr(1);
    if (kw != "pragma" || !(w >> prefix) || prefix != "oss") continue;
    out += path + ":" + std::to_string(n) +
           ": error: joulecc does not translate OmpSs pragmas in .cu files (nvcc compiles them "
           "as they are); declare the task function with its pragma in a C or C++ file or "
           "header and define it in the .cu file\n";
  }
  return out;
}

int compile_cuda_sources(DriverPlan& p, const Paths& paths, const CudaToolkit& tk,
                         const std::string& tmp) {
  const std::vector<std::string> flags = nvcc_flags(p);
  const std::size_t nsources = p.sources.size() + p.cu_sources.size();
  std::vector<std::size_t> drop;
  for (std::size_t k = 0; k < p.cu_sources.size(); ++k) {
    const std::string src = p.args[p.cu_sources[k]];
    std::string obj =
        p.link ? tmp + "/cu" + std::to_string(k) + ".o" : object_for(p, src, nsources);
    std::vector<std::string> cmd = {tk.nvcc, "-ccbin", p.compiler};
    cmd.insert(cmd.end(), flags.begin(), flags.end());
    for (const std::string& d : paths.include_dirs) cmd.push_back("-I" + d);
    for (const char* a : {"-c", "-o"}) cmd.push_back(a);
    cmd.push_back(obj);
    cmd.push_back(src);
    if (int rc = run_command(cmd, p.verbose); rc != 0) return rc;
    if (p.link)
      p.args[p.cu_sources[k]] = obj;
    else
      drop.push_back(p.cu_sources[k]);
  }
  // -c: the objects are written; the compiler sees neither the .cu files nor
  // (with no other source) the -o that named the .cu file's object.
  for (auto it = drop.rbegin(); it != drop.rend(); ++it) {
    p.args.erase(p.args.begin() + static_cast<long>(*it));
    for (std::size_t& s : p.sources)
      if (s > *it) --s;
  }
  p.cu_sources.clear();
  return 0;
}

int cuda_step(DriverPlan& p, const Paths& paths, const std::string& tmp,
              const std::vector<std::string>& translated, std::vector<std::string>& compile_flags,
              std::vector<std::string>& link_flags) {
  if (translated.empty() && p.cu_sources.empty() && !p.cuda) return 0;
  const std::string who = !translated.empty() ? translated[0] + ": device(cuda) task functions need"
                          : !p.cu_sources.empty() ? p.args[p.cu_sources[0]] + ": .cu files need"
                                                  : "--cuda needs";
  std::string bad;
  for (std::size_t s : p.cu_sources) bad += cuda_source_pragmas(p.args[s]);
  if (!bad.empty()) {
    std::cerr << bad;
    return 1;
  }
  CudaToolkit tk;
  std::string why;
  if (!find_cuda_toolkit(tk, why)) {
    std::cerr << "joulecc: error: " << who << " the CUDA toolkit: " << why << '\n';
    return 1;
  }
  bool compile_only = false;
  for (const std::string& a : p.args) compile_only = compile_only || a == "-c";
  if (!p.cu_sources.empty() && !p.link && !compile_only) {
    std::cerr << "joulecc: error: " << p.args[p.cu_sources[0]]
              << ": joulecc compiles .cu files with -c or into a program (not -E, -S or -M)\n";
    return 1;
  }
  compile_flags.push_back("-I" + tk.include_dir);
  if (p.link) link_flags = cuda_link_args(tk);
  return compile_cuda_sources(p, paths, tk, tmp);
}

}  // namespace joulecc
