// The OmpSs corpus: small programs in the styles of public OmpSs-1 and
// OmpSs-2 codes (corpus/*.c, C that is also C++). Each is built by the stock
// compiler alone (pragmas ignored: the sequential reference) and by joulecc
// with the same compiler, and must print exactly the reference output with
// 1, 2 and 4 workers. SHIM_CORPUS_COMPILER picks gcc or g++.
#include <gtest/gtest.h>

#include "shim_support.hpp"

namespace {

const std::string kCorpus = std::string(SHIM_DIR) + "/corpus";
const std::string kCompiler = SHIM_CORPUS_COMPILER;

class Corpus : public ::testing::TestWithParam<const char*> {};

// The program's source (quoted) and its sequential build's output, built in
// `dir` (the stock compiler alone: the pragmas are ignored).
shim::Result sequential_output(const std::string& name, const std::string& dir) {
  const std::string src = shim::quote(kCorpus + "/" + name + ".c");
  return shim::run("cd " + shim::quote(dir) + " && " + kCompiler + " -O1 -w " + src +
                   " -o seq -lm && ./seq");
}

TEST_P(Corpus, MatchesTheSequentialBuild) {
  const std::string name = GetParam();
  const std::string src = shim::quote(kCorpus + "/" + name + ".c");
  shim::TempDir tmp;
  const std::string cd = "cd " + shim::quote(tmp.path()) + " && ";
  shim::Result seq = sequential_output(name, tmp.path());
  ASSERT_EQ(seq.status, 0) << seq.output;
  ASSERT_FALSE(seq.output.empty());
  shim::Result b =
      shim::run(cd + JOULECC_PATH + " " + kCompiler + " -O1 -Wall -Wextra " + src + " -o par -lm");
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_EQ(b.output.find("warning:"), std::string::npos) << b.output;
  for (const char* workers : {"1", "2", "4"}) {
    shim::Result r = shim::run(cd + "JOULE_WORKERS=" + workers + " timeout 60 ./par 2>&1");
    EXPECT_EQ(r.status, 0) << workers << " workers: " << r.output;
    EXPECT_EQ(r.output, seq.output) << "with " << workers << " workers";
  }
}

// The same program and the code joulecc generated for it under ASan and
// UBSan (the runtime itself is checked by the asan preset's own tests).
TEST_P(Corpus, CleanUnderAddressAndUndefinedSanitizers) {
  const std::string name = GetParam();
  const std::string src = shim::quote(kCorpus + "/" + name + ".c");
  shim::TempDir tmp;
  const std::string cd = "cd " + shim::quote(tmp.path()) + " && ";
  shim::Result seq = sequential_output(name, tmp.path());
  ASSERT_EQ(seq.status, 0) << seq.output;
  const std::string flags =
      " -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all"
      " -fno-omit-frame-pointer ";
  shim::Result b = shim::run(cd + JOULECC_PATH + " " + kCompiler + flags + src + " -o san -lm");
  ASSERT_EQ(b.status, 0) << b.output;
  shim::Result r = shim::run(cd + "JOULE_WORKERS=2 timeout 120 ./san 2>&1");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, seq.output) << "a sanitizer reported, or the output differs";
}

INSTANTIATE_TEST_SUITE_P(Programs, Corpus,
                         ::testing::Values("fib_final", "lu_guarded", "mergesort", "nqueens",
                                           "tree_locks", "reductions", "sections", "fallback",
                                           "cholesky_oss2", "histogram", "taskwait_on",
                                           "taskloop_sum", "taskloop_red_sections", "taskloop_deps",
                                           "stencil_const", "multideps", "pic", "cg", "kmeans",
                                           "heat_taskloop"));

}  // namespace
