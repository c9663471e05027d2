// `joulecc --translate`: the translator alone, as build systems call it
// (cmake/JouleOmpss.cmake), with a make-style depfile.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "../translator/translate.hpp"
#include "driver.hpp"

namespace joulecc {

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

// The command line of `joulecc --translate`.
struct TranslateArgs {
  TranslateOptions o;
  std::string output = "-", depfile, dep_target;
};

// 0 when args are well formed, else the exit status (2), the problem said.
int parse_translate_args(const std::vector<std::string>& args, TranslateArgs& t) {
  TranslateOptions& o = t.o;
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
      ok = value(t.output);
    else if (a == "--line-name")
      ok = value(o.line_name);
    else if (a == "--depfile")
      ok = value(t.depfile);
    else if (a == "--dep-target")
      ok = value(t.dep_target);
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
  return 0;
}

// The translation to stdout ("-") or to the file, written whole or not at all.
bool write_output(const std::string& output, const std::string& text) {
  if (output == "-") {
    std::cout << text;
    return true;
  }
  std::string part = output + ".part";
  std::string why;
  if (!make_parent_dirs(output, why) || !(std::ofstream(part, std::ios::binary) << text) ||
      std::rename(part.c_str(), output.c_str()) != 0) {
    if (why.empty()) why = std::strerror(errno);
    std::cerr << "joulecc --translate: cannot write '" << output << "': " << why << '\n';
    std::remove(part.c_str());
    return false;
  }
  return true;
}

}  // namespace

int translate_main(const std::vector<std::string>& args, const Paths& paths) {
  TranslateArgs t;
  t.o.resource_dir = paths.resource_dir;
  if (int rc = parse_translate_args(args, t); rc != 0) return rc;
  // joule's headers last: a target's own include directories do not list them
  // (they come from the joule::ompss it links), the compile sees them anyway.
  std::vector<std::string> omp = omp_include_flags(paths, t.o.openmp);
  t.o.flags.insert(t.o.flags.begin(), omp.begin(), omp.end());
  for (const std::string& d : paths.include_dirs) t.o.flags.push_back("-I" + d);
  TranslateResult r;
  int rc = translate(t.o, r);
  if (rc != 0) {
    if (t.output != "-") std::remove(t.output.c_str());  // no stale output after an error
    return rc;
  }
  if (!write_output(t.output, r.output)) return 1;
  if (!t.depfile.empty() &&
      !write_depfile(t.depfile, t.dep_target.empty() ? t.output : t.dep_target, r.files))
    return 1;
  return 0;
}

}  // namespace joulecc
