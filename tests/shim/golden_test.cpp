// Golden translations: each input under golden/ translates to exactly its
// .expected file, and that translation compiles (gcc/g++ -fsyntax-only -Wall
// -Werror=implicit-function-declaration). Set JOULE_UPDATE_GOLDEN=1 to
// rewrite the .expected files after a deliberate change, then review the diff.
#include <gtest/gtest.h>

#include <cstdlib>

#include "shim_support.hpp"

namespace {

const std::string kDir = std::string(SHIM_DIR) + "/golden";
const std::string kInclude = std::string(SHIM_DIR) + "/../../api/include";
const std::string kVocabInclude = std::string(SHIM_DIR) + "/../../api/vocab";
const std::string kRtInclude = std::string(SHIM_DIR) + "/../../api/adapters/ompss/include";

class Golden : public ::testing::TestWithParam<const char*> {};

TEST_P(Golden, MatchesExpectedAndCompiles) {
  const std::string name = GetParam();
  shim::TempDir tmp;
  const std::string out = tmp.path() + "/" + name;
  shim::Result r =
      shim::run("cd " + shim::quote(kDir) + " && " + JOULECC_PATH + " --translate --line-name " +
                name + " -o " + shim::quote(out) + " " + name + " -- -I.");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string expected_path = kDir + "/" + name + ".expected";
  const std::string got = shim::read_file(out);
  if (std::getenv("JOULE_UPDATE_GOLDEN")) shim::write_file(expected_path, got);
  if (got != shim::read_file(expected_path)) {
    shim::Result diff = shim::run("diff -u " + shim::quote(expected_path) + " " + shim::quote(out));
    ADD_FAILURE() << name << " differs from " << expected_path << ":\n" << diff.output;
  }
  bool cxx = name.size() > 4 && name.substr(name.size() - 4) == ".cpp";
  std::string cc =
      cxx ? "g++ -std=c++17 -x c++" : "gcc -std=gnu11 -x c -Werror=implicit-function-declaration";
  shim::Result c =
      shim::run(cc + " -fsyntax-only -Wall -Wno-unknown-pragmas -Wno-unused-but-set-variable -I" +
                shim::quote(kInclude) + " -I" + shim::quote(kVocabInclude) + " -I" +
                shim::quote(kRtInclude) + " -iquote " + shim::quote(kDir) + " " + shim::quote(out));
  EXPECT_EQ(c.status, 0) << c.output;
  EXPECT_EQ(c.output, "") << "warnings in the translation of " << name;
}

INSTANTIATE_TEST_SUITE_P(Forms, Golden,
                         ::testing::Values("task_clauses.c", "regions.c", "directives.c",
                                           "taskloops.c", "function_tasks.c", "tasks.cpp",
                                           "ompss1_idioms.c"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           std::string s = i.param;
                           for (char& ch : s)
                             if (ch == '.') ch = '_';
                           return s;
                         });

}  // namespace
