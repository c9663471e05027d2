// Bad input: each file under errors/ lists the diagnostics it must produce as
// `// expect: LINE:COL: error: TEXT` comments. joulecc must print each one in
// the compiler's format (file:line:col: error: ...), exit non-zero, write no
// output file, and never crash. The driver behaves the same and leaves no object.
#include <gtest/gtest.h>

#include "shim_support.hpp"

namespace {

const std::string kDir = std::string(SHIM_DIR) + "/errors";

std::vector<std::string> expectations(const std::string& path) {
  std::vector<std::string> out;
  for (const std::string& l : shim::split_lines(shim::read_file(path))) {
    std::size_t k = l.find("// expect: ");
    if (k != std::string::npos) out.push_back(l.substr(k + 11));
  }
  return out;
}

class Errors : public ::testing::TestWithParam<const char*> {};

TEST_P(Errors, ReportsEachDiagnostic) {
  const std::string name = GetParam();
  shim::TempDir tmp;
  const std::string out = tmp.path() + "/out.c";
  shim::Result r = shim::run("cd " + shim::quote(kDir) + " && " + JOULECC_PATH +
                             " --translate -o " + shim::quote(out) + " " + name);
  EXPECT_EQ(r.status, 1) << r.output;  // 1: diagnosed; a crash would be 128+
  EXPECT_FALSE(shim::file_exists(out)) << "an output file was written";
  std::vector<std::string> want = expectations(kDir + "/" + name);
  ASSERT_FALSE(want.empty());
  for (const std::string& w : want)
    EXPECT_NE(r.output.find(name + ":" + w), std::string::npos)
        << "missing: " << name << ":" << w << "\n"
        << r.output;
  for (const std::string& line : shim::split_lines(r.output)) {
    if (line.find(": error: ") != std::string::npos) {
      EXPECT_EQ(line.rfind(name + ":", 0), 0u) << "diagnostic not in file:line:col form: " << line;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Files, Errors,
                         ::testing::Values("malformed.c", "semantic.c", "functions.c", "c_limits.c",
                                           "atomic.c", "cxx.cpp", "device.c", "section_length.c",
                                           "taskloop_deps.c", "pragma_macro.c", "cuda.c",
                                           "task_calls.c", "unknown_clauses.c"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           std::string s = i.param;
                           for (char& ch : s)
                             if (ch == '.') ch = '_';
                           return s;
                         });

// A call to a task function in a system header: joulecc rewrites the
// program's files only, so the call is an error there, not a plain call.
TEST(Errors, CallInSystemHeader) {
  shim::TempDir tmp;
  shim::Result r =
      shim::run("cd " + shim::quote(kDir) + " && " + JOULECC_PATH + " --translate -o " +
                shim::quote(tmp.path() + "/out.c") + " task_calls_sys.c");
  EXPECT_EQ(r.status, 1) << r.output;
  for (const char* at : {"task_calls_sys.h:6:3: error: ", "task_calls_sys.h:7:3: error: "})
    EXPECT_NE(r.output.find(std::string(at) + "this call to task function 'inc' cannot be turned "
                                              "into a task: it is in a system header"),
              std::string::npos)
        << r.output;
}

// `joulecc --translate` (joule_ompss_sources) cannot take -include out of
// the compile: a -include header with statement pragmas is an error at each
// pragma, with the fix, instead of tasks that silently run serially.
TEST(Errors, ForcedIncludeHeaderUnderTranslate) {
  shim::TempDir tmp;
  const std::string out = tmp.path() + "/out.c";
  const std::string parity = std::string(SHIM_DIR) + "/parity";
  shim::Result r = shim::run(std::string(JOULECC_PATH) + " --translate -o " + shim::quote(out) +
                             " " + shim::quote(parity + "/forced_include.c") + " -- -include " +
                             shim::quote(parity + "/include/scale.h"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_FALSE(shim::file_exists(out));
  for (const char* w : {"scale.h:9:1: error: '#pragma oss task' in a header joulecc cannot",
                        "scale.h:12:1: error: '#pragma oss taskwait' in a header joulecc cannot",
                        "(it comes from a -include option, which 'joulecc --translate' cannot take "
                        "out of the compile); include the header by name from the source "
                        "('#include \"scale.h\"')"})
    EXPECT_NE(r.output.find(w), std::string::npos) << "missing: " << w << "\n" << r.output;
}

TEST(Errors, DriverStopsBeforeTheCompiler) {
  shim::TempDir tmp;
  shim::Result r = shim::run("cd " + shim::quote(tmp.path()) + " && " + JOULECC_PATH + " gcc -c " +
                             shim::quote(kDir + "/malformed.c") + " -o bad.o");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_FALSE(shim::file_exists(tmp.path() + "/bad.o"));
  EXPECT_NE(r.output.find("malformed.c:7:22: error: clause 'grainsize' is not allowed"),
            std::string::npos)
      << r.output;
}

TEST(Errors, CompilerErrorsPointAtThePragma) {
  // Names joulecc leaves to the compiler (C++ lookup) are reported by it at the
  // user's line and column through #line.
  shim::TempDir tmp;
  shim::write_file(tmp.path() + "/e.cpp",
                   "int main() {\n  int x = 0;\n#pragma oss task inout(nosuch)\n  x++;\n}\n");
  shim::Result r =
      shim::run("cd " + shim::quote(tmp.path()) + " && " + JOULECC_PATH + " g++ -c e.cpp -o e.o");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("e.cpp:3:24: error:"), std::string::npos) << r.output;
  EXPECT_FALSE(shim::file_exists(tmp.path() + "/e.o"));
}

TEST(Errors, SyntaxErrorsInTheProgram) {
  shim::TempDir tmp;
  shim::write_file(tmp.path() + "/s.c", "int main(void) {\n  return 0\n}\n");
  shim::Result r = shim::run("cd " + shim::quote(tmp.path()) + " && " + JOULECC_PATH +
                             " --translate s.c -o s.out");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("s.c:2:11: error: expected ';'"), std::string::npos) << r.output;
  EXPECT_FALSE(shim::file_exists(tmp.path() + "/s.out"));
}

// Brace nesting deeper than Clang's default limit (256): joulecc's parse
// stops with Clang's message, which suggests -fbracket-depth; joulecc takes
// that flag (for its own parse only: gcc does not know it) and the program
// then builds.
TEST(Errors, BracketDepthFlagIsHonoured) {
  shim::TempDir tmp;
  std::string body = "int main(void) {\n  int x = 0;\n";
  for (int i = 0; i < 300; ++i) body += "{";
  body += "x++;";
  for (int i = 0; i < 300; ++i) body += "}";
  body += "\n#pragma oss taskwait\n  return x - 1;\n}\n";
  shim::write_file(tmp.path() + "/deep.c", body);
  const std::string cd = "cd " + shim::quote(tmp.path()) + " && " + JOULECC_PATH;
  shim::Result r = shim::run(cd + " gcc deep.c -o deep");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("-fbracket-depth"), std::string::npos) << r.output;
  r = shim::run(cd + " gcc -fbracket-depth=512 deep.c -o deep && JOULE_WORKERS=1 ./deep");
  EXPECT_EQ(r.status, 0) << r.output;
}

// A section length computed at run time: a negative one stops the program
// with the clause's file and line and the value, status 1 (it used to reach
// the runtime as a huge size_t and abort with a raw address).
TEST(Errors, NegativeSectionLengthAtRunTime) {
  shim::TempDir tmp;
  const std::string body =
      "int main(int argc, char **argv) {\n"
      "  int a[8] = {0};\n"
      "  int n = argc - 6, lo = argc + 2;\n"
      "  (void)argv;\n"
      "#pragma oss task in(a[0;n])\n"
      "  a[0]++;\n"
      "#pragma oss task in(a[lo:1])\n"
      "  a[0]++;\n"
      "#pragma oss taskwait\n"
      "  return 0;\n"
      "}\n";
  for (const char* cc : {"gcc", "g++"}) {
    const std::string file = std::string(cc) == "gcc" ? "neg.c" : "neg.cpp";
    shim::write_file(tmp.path() + "/" + file, body);
    shim::Result r = shim::run("cd " + shim::quote(tmp.path()) + " && " + JOULECC_PATH + " " + cc +
                               " " + file + " -o neg && JOULE_WORKERS=2 ./neg");
    EXPECT_EQ(r.status, 1) << cc << "\n" << r.output;
    EXPECT_NE(r.output.find(file + ":5: error: the section of 'a' has a negative length (-5)"),
              std::string::npos)
        << cc << "\n"
        << r.output;
    shim::Result u =
        shim::run("cd " + shim::quote(tmp.path()) + " && JOULE_WORKERS=2 ./neg x x x x x");
    EXPECT_EQ(u.status, 1) << cc << "\n" << u.output;
    EXPECT_NE(u.output.find(file + ":7: error: the section of 'a' has a negative length (-6)"),
              std::string::npos)
        << cc << "\n"
        << u.output;
  }
}

}  // namespace
