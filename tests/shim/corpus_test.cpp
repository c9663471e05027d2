// The OmpSs corpus: small programs in the styles of public OmpSs-1 and
// OmpSs-2 codes (corpus/*.c, C that is also C++ unless it says
// "corpus: C only"). Each is built by the stock
// compiler alone (pragmas ignored: the sequential reference) and by joulecc
// with the same compiler, and must print exactly the reference output with
// 1, 2 and 4 workers. SHIM_CORPUS_COMPILER picks gcc or g++.
// SHIM_CORPUS_SANITIZER (sanitizer builds: tests/shim/CMakeLists.txt) builds
// them with that build's sanitizer against its instrumented libjoule instead.
#include <gtest/gtest.h>

#include <initializer_list>

#include "shim_support.hpp"

namespace {

const std::string kCorpus = std::string(SHIM_DIR) + "/corpus";
const std::string kCompiler = SHIM_CORPUS_COMPILER;

// The build lines of programs written for Mercurium or the OmpSs-2 Clang:
// their flags, which joulecc maps or drops (docs/porting-ompss.md, "Every
// flag"). The programs check with #error that the mapped ones arrived.
std::string program_flags(const std::string& name) {
  if (name == "ompss1_threads")
    return "--ompss --instrument --variable=tdg:1 -k --keep-all-files --no-copy-deps --openmp "
           "--debug --Wn,-O1 --Wp,-DJOULE_CORPUS_FLAGS=1 --output-dir=. --pp=on "
           "--do-not-warn-config --Xcompiler -Wno-unknown-pragmas --std=c99";
  if (name == "cluster_dmalloc")
    return "--ompss-2 -fompss-2=libnanos6 -fdo-not-use-nanos6 --line-markers "
           "--Wnp,-DJOULE_CORPUS_FLAGS=1 --Wr,-lm --Ws,-ffree --disable-locking --profile=mcc "
           "--env=x86_64 --instrument";
  return "";
}

// One corpus program in a fresh directory, with its sequential build's
// output there (the stock compiler alone: the pragmas are ignored).
class Corpus : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    // C99 that is not C++ (variably modified parameters): g++ rejects the
    // sequential build too.
    const std::string path = kCorpus + "/" + GetParam() + ".c";
    if (kCompiler.find("++") != std::string::npos &&
        shim::read_file(path).find("corpus: C only") != std::string::npos)
      GTEST_SKIP() << GetParam() << " is C only";
    src_ = shim::quote(path);
    cd_ = "cd " + shim::quote(tmp_.path()) + " && ";
    seq_ = shim::run(cd_ + kCompiler + " -O1 -w " + src_ + " -o seq -lm && ./seq");
    ASSERT_EQ(seq_.status, 0) << seq_.output;
    ASSERT_FALSE(seq_.output.empty());
  }

  // joulecc with the corpus compiler and `flags`, into `exe`.
  shim::Result build(const std::string& flags, const std::string& exe) {
    return shim::run(cd_ + JOULECC_PATH + " " + kCompiler + " " + flags + " " +
                     program_flags(GetParam()) + " " + src_ + " -o " + exe + " -lm");
  }

  // Runs `exe` under the environment `env` at each worker count: it must
  // exit 0 and print exactly the sequential output (a sanitizer's report
  // would change both).
  void expect_sequential_output(const std::string& exe, const std::string& env,
                                std::initializer_list<const char*> workers, int timeout_s) {
    for (const char* w : workers) {
      shim::Result r = shim::run(cd_ + env + " JOULE_WORKERS=" + w + " timeout " +
                                 std::to_string(timeout_s) + " ./" + exe + " 2>&1");
      EXPECT_EQ(r.status, 0) << w << " workers: " << r.output;
      EXPECT_EQ(r.output, seq_.output) << "with " << w << " workers";
    }
  }

  shim::TempDir tmp_;
  std::string src_;
  std::string cd_;
  shim::Result seq_;
};

#ifdef SHIM_CORPUS_SANITIZER
const std::string kSanitizer = SHIM_CORPUS_SANITIZER;

// Each tool stops at its first report with status 66, which no corpus
// program exits with; set here (over the presets' own options) so that a
// run outside ctest's presets checks the same.
std::string sanitizer_env() {
  if (kSanitizer == "thread") return "TSAN_OPTIONS='halt_on_error=1 exitcode=66'";
  return "ASAN_OPTIONS='detect_leaks=1 exitcode=66'"
         " UBSAN_OPTIONS='halt_on_error=1 print_stacktrace=1'";
}

// The program and the code joulecc generated for it built with this build's
// sanitizer, on this build's instrumented libjoule and adapters, so the tool
// sees both sides of every dependency and synchronisation.
TEST_P(Corpus, CleanUnderThisBuildsSanitizer) {
  std::string flags = "-O1 -g -fno-omit-frame-pointer -fsanitize=" + kSanitizer;
  if (kSanitizer.find("undefined") != std::string::npos) flags += " -fno-sanitize-recover=all";
  shim::Result b = build(flags, "san");
  ASSERT_EQ(b.status, 0) << b.output;
  shim::Result ldd = shim::run(cd_ + "ldd ./san");
  EXPECT_NE(ldd.output.find(std::string(SHIM_JOULE_LIB_DIR) + "/libjoule.so"), std::string::npos)
      << "not linked against this build's libjoule: " << ldd.output;
  expect_sequential_output("san", sanitizer_env(), {"1", "2", "4"}, 300);
}
#else
TEST_P(Corpus, MatchesTheSequentialBuild) {
  shim::Result b = build("-O1 -Wall -Wextra", "par");
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_EQ(b.output.find("warning:"), std::string::npos) << b.output;
  expect_sequential_output("par", "", {"1", "2", "4"}, 60);
}

// The same program and the code joulecc generated for it under ASan and
// UBSan (the runtime itself is checked by the asan preset, corpus included).
TEST_P(Corpus, CleanUnderAddressAndUndefinedSanitizers) {
  shim::Result b =
      build("-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer",
            "san");
  ASSERT_EQ(b.status, 0) << b.output;
  expect_sequential_output("san", "", {"2"}, 120);
}
#endif

INSTANTIATE_TEST_SUITE_P(Programs, Corpus,
                         ::testing::Values("fib_final", "lu_guarded", "mergesort", "nqueens",
                                           "tree_locks", "reductions", "sections", "fallback",
                                           "cholesky_oss2", "histogram", "taskwait_on",
                                           "taskloop_sum", "taskloop_red_sections", "taskloop_deps",
                                           "stencil_const", "multideps", "pic", "cg", "kmeans",
                                           "heat_taskloop", "header_calls", "stencil_fletcher",
                                           "ompss1_threads", "cluster_dmalloc", "extern_taskloop",
                                           "gather_scatter", "taskloop_irregular", "amr_patches"));

}  // namespace
