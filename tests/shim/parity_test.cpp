// OmpSs programs written for Mercurium (parity/): pragmas from macros, the
// clause spellings it accepted, C++98. Each is built by the stock compiler
// alone (-DSEQUENTIAL_REFERENCE, pragmas ignored: the reference) and by
// joulecc, must print the reference output with 1 and 2 workers, and its
// translation must create as many tasks (task statements, taskloops, task
// functions declared) and taskwaits as its `// parity:` line counts:
// a pragma dropped on the way would still print the right output.
#include <gtest/gtest.h>

#include <fstream>

#include "shim_support.hpp"

namespace {

const std::string kDir = std::string(SHIM_DIR) + "/parity";
const std::string kJoulecc = JOULECC_PATH;

struct Case {
  std::string file, compiler, flags;
};

// The value of `key=value` on the file's `// parity:` line ("" when absent).
std::string parity_value(const std::string& path, const std::string& key) {
  for (const std::string& l : shim::split_lines(shim::read_file(path))) {
    if (l.rfind("// parity:", 0) != 0) continue;
    std::size_t k = l.find(" " + key + "=");
    if (k == std::string::npos) return "";
    std::string v = l.substr(k + key.size() + 2);
    return v.substr(0, v.find(' '));
  }
  return "";
}

int expected(const std::string& path, const std::string& key) {
  std::string v = parity_value(path, key);
  return v.empty() ? 0 : std::stoi(v);
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t k = text.find(what); k != std::string::npos; k = text.find(what, k + 1)) ++n;
  return n;
}

class Parity : public ::testing::TestWithParam<Case> {};

TEST_P(Parity, TranslatedAndMatchesTheSequentialBuild) {
  const Case& c = GetParam();
  const std::string path = kDir + "/" + c.file;
  // `also=b.c`: a second source of the same program (a shared header).
  std::string src = shim::quote(path);
  if (std::string also = parity_value(path, "also"); !also.empty())
    src += " " + shim::quote(kDir + "/" + also);
  shim::TempDir tmp;
  const std::string cd = "cd " + shim::quote(tmp.path()) + " && ";
  shim::Result seq = shim::run(cd + c.compiler + " " + c.flags + " -O1 -w -DSEQUENTIAL_REFERENCE " +
                               src + " -o seq && ./seq");
  ASSERT_EQ(seq.status, 0) << seq.output;
  shim::Result e = shim::run(cd + kJoulecc + " --joule-E " + c.compiler + " " + c.flags + " " +
                             shim::quote(path));
  ASSERT_EQ(e.status, 0) << e.output;
  // C creates tasks with joule_oss_task_create, C++ with joule_oss::spawn.
  EXPECT_EQ(count(e.output, "joule_oss_task_create(") + count(e.output, "joule_oss::spawn("),
            expected(path, "tasks"))
      << e.output;
  EXPECT_EQ(count(e.output, "joule_oss_taskwait") + count(e.output, "joule_oss::taskwait"),
            expected(path, "taskwaits"))
      << e.output;
  shim::Result b = shim::run(cd + kJoulecc + " " + c.compiler + " " + c.flags +
                             " -O1 -Wall -Wextra " + src + " -o par");
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_EQ(count(b.output, "warning:"), expected(path, "warnings")) << b.output;
  for (const char* workers : {"1", "2", "4"}) {
    shim::Result r = shim::run(cd + "JOULE_WORKERS=" + workers + " timeout 60 ./par 2>&1");
    EXPECT_EQ(r.status, 0) << workers << " workers: " << r.output;
    EXPECT_EQ(r.output, seq.output) << "with " << workers << " workers";
  }
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (const char* f : {"pragma_macros.c", "mercurium_syntax.c", "extern_unused.c", "heat_a.c",
                        "computed_include.c", "unknown_clauses.c", "pragma_macro_clauses.c",
                        "pragma_macro_bodies.c"}) {
    v.push_back({f, "gcc", ""});
    v.push_back({f, "g++", ""});
  }
  v.push_back({"minife.cpp", "g++", ""});
  v.push_back({"minife.cpp", "clang++", "-std=c++14"});
  v.push_back({"cxx98.cpp", "g++", "-std=c++98"});
  v.push_back({"cxx98.cpp", "g++", "-std=gnu++98"});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Programs, Parity, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string s = i.param.file + "_" + i.param.compiler + i.param.flags;
                           std::string out;
                           for (char ch : s)
                             out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return out;
                         });

// A header given with -include is a header like any other: the driver
// translates it in front of the source and takes the option out of the
// compile (which would otherwise bring the untranslated text first).
TEST(Headers, ForcedIncludeIsTranslated) {
  const std::string header = shim::quote(kDir + "/include/scale.h");
  const std::string src = shim::quote(kDir + "/forced_include.c");
  shim::TempDir tmp;
  const std::string cd = "cd " + shim::quote(tmp.path()) + " && ";
  for (const char* cc : {"gcc", "g++"}) {
    shim::Result e =
        shim::run(cd + kJoulecc + " --joule-E " + cc + " -include " + header + " " + src);
    ASSERT_EQ(e.status, 0) << e.output;
    EXPECT_EQ(count(e.output, "joule_oss_task_create(") + count(e.output, "joule_oss::spawn("), 1)
        << e.output;
    EXPECT_EQ(count(e.output, "warning:"), 0) << e.output;
    shim::Result b =
        shim::run(cd + kJoulecc + " " + cc + " -Wall -include " + header + " " + src + " -o f");
    ASSERT_EQ(b.status, 0) << b.output;
    for (const char* workers : {"1", "2", "8"}) {
      shim::Result r = shim::run(cd + "JOULE_WORKERS=" + workers + " timeout 60 ./f 2>&1");
      EXPECT_EQ(r.status, 0) << cc << ", " << workers << " workers: " << r.output;
      EXPECT_EQ(r.output, "sum = 570.0\n") << cc << ", " << workers << " workers";
    }
  }
  // A task function declared in a -include header: its wrapper goes first.
  shim::write_file(tmp.path() + "/ft.h", "#pragma oss task inout(*x)\nvoid incr(int *x);\n");
  shim::write_file(tmp.path() + "/ft.c",
                   "#include <stdio.h>\nvoid incr(int *x) { *x += 1; }\n"
                   "int main(void) {\n  int v = 1;\n  incr(&v);\n  incr(&v);\n"
                   "#pragma oss taskwait\n  printf(\"v=%d\\n\", v);\n  return 0;\n}\n");
  shim::Result ft = shim::run(cd + kJoulecc + " gcc -Wall -include ft.h ft.c -o ft && " +
                              "JOULE_WORKERS=2 timeout 60 ./ft");
  EXPECT_EQ(ft.status, 0) << ft.output;
  EXPECT_NE(ft.output.find("v=3"), std::string::npos) << ft.output;
  // -imacros keeps only the macros: its pragmas are no one's to translate.
  shim::Result m = shim::run(cd + kJoulecc + " --joule-E gcc -imacros " + header + " -include " +
                             header + " " + src);
  EXPECT_EQ(m.status, 0) << m.output;
}

// joulecc-gcc / joulecc-g++ (links to joulecc beside it) pick the compiler
// by name and take Mercurium's flags anywhere on the line: the mode ones, the
// dropped ones, and --Wn/--Wp forwarded to the compiler.
TEST(Drivers, OneWordDriversTakeMercuriumFlags) {
  const std::string bin = kJoulecc.substr(0, kJoulecc.find_last_of('/'));
  shim::TempDir tmp;
  const std::string cd = "cd " + shim::quote(tmp.path()) + " && ";
  shim::write_file(tmp.path() + "/m.c",
                   "#include <stdio.h>\n"
                   "#if !defined(_OMPSS) || !defined(_OMPSS_2) || FROM_WP != 3\n"
                   "#error joulecc defines _OMPSS and _OMPSS_2; --Wp,-D reaches the compiler\n"
                   "#endif\n"
                   "int main(void) {\n  int x = 1;\n"
                   "#pragma omp task inout(x)\n  x += 41;\n"
                   "#pragma omp taskwait\n  printf(\"x=%d\\n\", x);\n  return 0;\n}\n");
  for (const char* driver : {"joulecc-gcc", "joulecc-g++"}) {
    const std::string cmd = bin + "/" + driver +
                            " --ompss -k --ompss-2 --keep-files --variable=tdg:1 --line-markers"
                            " m.c --Wn,-O2,-Wall --Wp,-DFROM_WP=3 --instrument -o m";
    shim::Result b = shim::run(cd + cmd + " && JOULE_WORKERS=2 ./m");
    EXPECT_EQ(b.status, 0) << cmd << "\n" << b.output;
    EXPECT_NE(b.output.find("x=42"), std::string::npos) << b.output;
    EXPECT_EQ(b.output.find("warning:"), std::string::npos) << b.output;
  }
  // A file without pragmas sees both macros as well.
  shim::write_file(tmp.path() + "/plain.c",
                   "#if !defined(_OMPSS) || !defined(_OMPSS_2)\n#error no _OMPSS_2\n#endif\n"
                   "int main(void) { return 0; }\n");
  shim::Result p = shim::run(cd + bin + "/joulecc-gcc -c plain.c");
  EXPECT_EQ(p.status, 0) << p.output;
}

// Flags OmpSs-2 build scripts pass (docs/porting-ompss.md, section 1):
// Mercurium's --no-copy-deps and LLVM's -fompss-2 are accepted and dropped,
// and --ompss-2 brings <nanos6.h> in as Mercurium's -include does (the
// program calls the Nanos6 API without including it).
TEST(Drivers, Ompss2FlagsOfMercuriumAndLlvm) {
  const std::string bin = kJoulecc.substr(0, kJoulecc.find_last_of('/'));
  shim::TempDir tmp;
  const std::string cd = "cd " + shim::quote(tmp.path()) + " && ";
  shim::write_file(
      tmp.path() + "/n.c",
      "#include <stdio.h>\n"
      "int main(void) {\n  int x = 1;\n"
      "#pragma oss task inout(x)\n  x += 41;\n"
      "#pragma oss taskwait\n"
      "  printf(\"x=%d cpus=%d\\n\", x, nanos6_get_num_cpus() > 0);\n  return 0;\n}\n");
  for (const char* driver : {"joulecc-gcc", "joulecc-g++"}) {
    const std::string cmd =
        bin + "/" + driver + " --ompss-2 --no-copy-deps -fompss-2 -Wall n.c --copy-deps -o n";
    shim::Result b = shim::run(cd + cmd + " 2>&1 && JOULE_WORKERS=2 ./n");
    EXPECT_EQ(b.status, 0) << cmd << "\n" << b.output;
    EXPECT_NE(b.output.find("x=42 cpus=1"), std::string::npos) << b.output;
    EXPECT_EQ(b.output.find("warning:"), std::string::npos) << b.output;
  }
}

// The rest of both compilers' flags (docs/porting-ompss.md, "Every flag"):
// mapped ones take effect, a misspelt one still reaches the compiler and
// fails there, and --do-not-process-file gives the source to it untranslated.
TEST(Drivers, ForeignFlagsMappedOrDroppedTyposFail) {
  shim::TempDir tmp;
  const std::string cd = "cd " + shim::quote(tmp.path()) + " && " + kJoulecc + " gcc ";
  shim::write_file(tmp.path() + "/f.c",
                   "#include <stdio.h>\n"
                   "#if !defined(_OMPSS_2_NODES) || FROM_XC != 2 || FROM_WNP != 3\n"
                   "#error -fompss-2=libnodes, --Xcompiler and --Wnp reach the compile\n"
                   "#endif\n"
                   "int main(void) {\n  int x = 1;\n"
                   "#pragma oss task inout(x)\n  x += 41;\n"
                   "#pragma oss taskwait\n  printf(\"x=%d\\n\", x);\n  return 0;\n}\n");
  shim::Result b = shim::run(cd +
                             "-fompss-2=libnodes -fdo-not-use-ompss-2-runtime --Xcompiler "
                             "-DFROM_XC=2 --Wnp,-DFROM_WNP=3 --Ws,-ffree --Wr,-lm --cc=gcc "
                             "--std=c99 --upc --v --parallel f.c -o f 2>&1 && JOULE_WORKERS=2 ./f");
  EXPECT_EQ(b.status, 0) << b.output;
  EXPECT_NE(b.output.find("x=42"), std::string::npos) << b.output;
  EXPECT_NE(b.output.find("gcc "), std::string::npos) << "--v shows the compile: " << b.output;
  // -y: parse only (Mercurium), nothing written.
  shim::Result y = shim::run(cd + "-y -DFROM_XC=2 -DFROM_WNP=3 -D_OMPSS_2_NODES f.c -o y.out 2>&1");
  EXPECT_EQ(y.status, 0) << y.output;
  EXPECT_FALSE(std::ifstream(tmp.path() + "/y.out").good());
  shim::write_file(tmp.path() + "/t.c", "int main(void) { return 0; }\n");
  for (const char* typo : {"--ompss-3", "-fompss-3", "--keep-file"}) {
    shim::Result t = shim::run(cd + typo + " t.c -o t 2>&1");
    EXPECT_NE(t.status, 0) << typo << ": " << t.output;
    EXPECT_NE(t.output.find(typo), std::string::npos) << t.output;
  }
  shim::write_file(tmp.path() + "/u.c",
                   "#ifdef _OMPSS\n#error translated\n#endif\n"
                   "int main(void) {\n  int x = 0;\n#pragma oss task inout(x)\n  x++;\n"
                   "  return x == 1 ? 0 : 1;\n}\n");
  shim::Result u =
      shim::run(cd + "--do-not-process-file -Wno-unknown-pragmas u.c -o u 2>&1 && ./u");
  EXPECT_EQ(u.status, 0) << u.output;
  EXPECT_NE(shim::run(cd + "u.c -o u2 2>&1").status, 0) << "translated: _OMPSS is defined";
}

}  // namespace
