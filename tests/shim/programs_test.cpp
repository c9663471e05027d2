// Compile-and-run: each program under programs/ is built by joulecc with a
// real compiler and optimization level, run on 3 workers, and must print OK
// (each program checks its own result). The build must be warning-free under
// -Wall -Wextra. Matrix (to stay within the time budget on 2 cores): every C
// program with gcc -O2 and clang -O0, and lu/dot/reduction also with gcc -O0
// and clang -O2; every C++ program with g++ -O2 and clang++ -O0 -std=c++20,
// throw.cpp also with g++ -O0 -std=c++20 and dot.cpp with clang++ -O2.
#include <gtest/gtest.h>

#include "shim_support.hpp"

namespace {

const std::string kPrograms = std::string(SHIM_DIR) + "/programs";

struct Case {
  std::string file, compiler, flags;
};

std::string case_name(const Case& c) {
  std::string s = c.file + "_" + c.compiler + c.flags;
  std::string out;
  for (char ch : s) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out;
}

std::vector<Case> cases() {
  std::vector<Case> v;
#ifdef SHIM_SET_C
  for (const char* p : {"lu", "cholesky", "dot", "multisort", "stream", "commutative", "reduction",
                        "taskloop", "critical", "vla", "nested", "task_reduction"}) {
    v.push_back({std::string(p) + ".c", "gcc", "-O2"});
    v.push_back({std::string(p) + ".c", "clang", "-O0"});
  }
  for (const char* p : {"lu", "dot", "reduction"}) {
    v.push_back({std::string(p) + ".c", "gcc", "-O0"});
    v.push_back({std::string(p) + ".c", "clang", "-O2"});
  }
#endif
#ifdef SHIM_SET_CXX
  for (const char* p : {"throw", "dot", "heavy", "task_reduction"}) {
    v.push_back({std::string(p) + ".cpp", "g++", "-O2"});
    v.push_back({std::string(p) + ".cpp", "clang++", "-O0 -std=c++20"});
  }
  v.push_back({"throw.cpp", "g++", "-O0 -std=c++20"});
  v.push_back({"dot.cpp", "clang++", "-O2"});
#endif
  return v;
}

class Program : public ::testing::TestWithParam<Case> {};

TEST_P(Program, BuildsAndVerifies) {
  const Case& c = GetParam();
  if (!shim::have_program(c.compiler)) GTEST_SKIP() << c.compiler << " is not installed";
  shim::TempDir tmp;
  std::string build = "cd " + shim::quote(tmp.path()) + " && " + JOULECC_PATH + " " + c.compiler +
                      " " + c.flags + " -Wall -Wextra " + shim::quote(kPrograms + "/" + c.file) +
                      " -o prog -lm";
  shim::Result b = shim::run(build);
  ASSERT_EQ(b.status, 0) << build << "\n" << b.output;
  EXPECT_EQ(b.output.find("warning:"), std::string::npos) << b.output;
  shim::Result r =
      shim::run("cd " + shim::quote(tmp.path()) + " && JOULE_WORKERS=3 timeout 60 ./prog");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Matrix, Program, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return case_name(i.param);
                         });

#ifdef SHIM_SET_C
TEST(Driver, SeparateCompileAndLinkKeepAndPrint) {
  shim::TempDir tmp;
  std::string cd = "cd " + shim::quote(tmp.path()) + " && ";
  std::string src = shim::quote(kPrograms + "/dot.c");
  shim::Result c = shim::run(cd + JOULECC_PATH + " --keep gcc -O1 -c " + src);
  ASSERT_EQ(c.status, 0) << c.output;
  EXPECT_TRUE(shim::file_exists(tmp.path() + "/dot.o"));  // named after the source, as gcc does
  EXPECT_TRUE(shim::file_exists(tmp.path() + "/dot.joule.c"));  // --keep
  shim::Result l = shim::run(cd + JOULECC_PATH + " gcc dot.o -o dot && JOULE_WORKERS=2 ./dot");
  EXPECT_EQ(l.status, 0) << l.output;
  EXPECT_NE(l.output.find("OK"), std::string::npos);
  shim::Result e = shim::run(cd + JOULECC_PATH + " --joule-E gcc " + src);
  EXPECT_EQ(e.status, 0);
  EXPECT_NE(e.output.find("joule_oss_task_create"), std::string::npos);
  EXPECT_NE(e.output.find("#line 1 \"" + kPrograms + "/dot.c\""), std::string::npos);
  EXPECT_FALSE(shim::file_exists(tmp.path() + "/a.out"));
}

// <nanos6.h> found under its Nanos6 name (joulecc's -I<include>/joule/nanos6),
// blocking, polling services and event counters in a translated program; at
// one worker the blocked task's helping wait must run everything else.
TEST(Driver, Nanos6ApiAtOneAndTwoWorkers) {
  shim::TempDir tmp;
  std::string cd = "cd " + shim::quote(tmp.path()) + " && ";
  shim::Result b = shim::run(cd + JOULECC_PATH + " gcc -O2 -Wall -Wextra " +
                             shim::quote(kPrograms + "/nanos6_api.c") + " -o nanos6_api");
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_EQ(b.output.find("warning:"), std::string::npos) << b.output;
  for (const char* w : {"1", "2"}) {
    shim::Result r = shim::run(cd + "JOULE_WORKERS=" + w + " timeout 60 ./nanos6_api");
    EXPECT_EQ(r.status, 0) << w << " workers: " << r.output;
    EXPECT_NE(r.output.find("OK"), std::string::npos) << w << " workers: " << r.output;
  }
}

TEST(Driver, MpiAndTasks) {
  if (!shim::have_program("mpicc"))
    GTEST_SKIP() << "mpicc is not installed (OpenMPI comes with the CPU-lending work); "
                    "the MPI + tasks program is not built";
  shim::TempDir tmp;
  std::string cd = "cd " + shim::quote(tmp.path()) + " && ";
  shim::Result b = shim::run(cd + JOULECC_PATH + " mpicc -O2 " +
                             shim::quote(kPrograms + "/mpi_tasks.c") + " -o mpi");
  ASSERT_EQ(b.status, 0) << b.output;
  shim::Result r = shim::run(
      cd + "JOULE_WORKERS=2 timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 ./mpi");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
}
#endif

#ifdef SHIM_SET_CXX
TEST(Driver, CxxTaskFunctionFromAHeaderInNamespaces) {
  shim::TempDir tmp;
  std::string cd = "cd " + shim::quote(tmp.path()) + " && ";
  shim::Result b = shim::run(
      cd + JOULECC_PATH + " g++ -O1 -Wall -Wextra " + shim::quote(kPrograms + "/ns_main.cpp") +
      " " + shim::quote(kPrograms + "/ns_kernels.cpp") + " -o ns && JOULE_WORKERS=3 ./ns");
  EXPECT_EQ(b.status, 0) << b.output;
  EXPECT_NE(b.output.find("OK"), std::string::npos) << b.output;
  EXPECT_EQ(b.output.find("warning:"), std::string::npos) << b.output;
}

// Outside its pragmas, a header-heavy C++ file comes out of joulecc line for
// line as it went in (the lambdas wrap statements in place).
TEST(Translation, HeaderHeavyFileUnchangedOutsidePragmas) {
  const std::string src = kPrograms + "/heavy.cpp";
  shim::Result r =
      shim::run(std::string(JOULECC_PATH) + " --translate " + shim::quote(src) + " -- -std=c++17");
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<std::string> out = shim::split_lines(r.output);
  std::size_t at = 0, kept = 0;
  for (const std::string& line : shim::split_lines(shim::read_file(src))) {
    if (line.find("#pragma oss") != std::string::npos) continue;
    while (at < out.size() && out[at] != line) ++at;
    ASSERT_LT(at, out.size()) << "line changed or lost: '" << line << "'";
    ++at;
    ++kept;
  }
  EXPECT_GT(kept, 60u);
}
#endif

}  // namespace
