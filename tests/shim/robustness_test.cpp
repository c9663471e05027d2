// The translator never crashes: pragmas mutated at random (a seeded,
// bounded stream, like a fuzzer's) inside a small C program go through the
// whole Clang-based translation in-process. Each run either succeeds or
// reports errors in file:line:col form; successful translations are compiled
// and any compiler error must point into the user's file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "shim_support.hpp"
#include "translate.hpp"

namespace {

const char* const kSeeds[] = {
    "oss task in(a[0;n]) out(x) inout(s->f) priority(n) label(t)",
    "omp task input([n]p) output(y[1:3]) commutative(x) firstprivate(n)",
    "oss task depend(in: a[0:4]) reduction(+: x) if(n > 2) final(0) cost(1)",
    "oss taskwait on(x) in(a[2])",
    "oss taskloop grainsize(4) in(a[0;n])",
    "oss critical(lock)",
    "oss task in(([2][5]p)[1;1][0:4]) weakinout(y[0]) concurrent(m[0][0;3])",
    "omp target device(smp) copy_deps",
    "oss task device(cuda) ndrange(2, w, h, 16, 8) out([w * h]m)",
    "oss release in(x)",
    "oss atomic",
};

const char* const kFragments[] = {"(",
                                  ")",
                                  "[",
                                  "]",
                                  ";",
                                  ":",
                                  ",",
                                  "*",
                                  "->",
                                  ".",
                                  "x",
                                  "y",
                                  "a",
                                  "p",
                                  "s",
                                  "n",
                                  "0",
                                  "1",
                                  "?",
                                  "+",
                                  "[n]",
                                  "in(",
                                  "out(",
                                  "task ",
                                  " ",
                                  "\"",
                                  "{",
                                  "}",
                                  "\\",
                                  "m",
                                  "::",
                                  "#",
                                  "reduction(max:",
                                  "default(none)",
                                  "private(x)"};

std::string program(const std::string& pragma1, const std::string& pragma2) {
  return "struct S { int f; };\n"
         "int g;\n"
         "void f(int n, int *p, struct S *s, double m[4][5]) {\n"
         "  int x = 0, y[10], a[8];\n"
         "#pragma " +
         pragma1 +
         "\n"
         "  x += y[0] + a[1] + s->f + p[0] + (int)m[0][0];\n"
         "#pragma " +
         pragma2 +
         "\n"
         "  for (int i = 0; i < n; i++) g += i;\n"
         "}\n";
}

std::string mutate(std::string s, std::mt19937& rng) {
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; e++) {
    std::size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 3) {
      case 0:
        if (!s.empty() && pos < s.size()) s.erase(pos, 1 + rng() % 3);
        break;
      case 1:
        s.insert(pos, kFragments[rng() % (sizeof(kFragments) / sizeof(*kFragments))]);
        break;
      default:
        if (pos < s.size()) s[pos] = "()[];:,*x1 "[rng() % 11];
        break;
    }
  }
  return s;
}

TEST(Robustness, MutatedPragmasNeverCrashTheTranslator) {
  std::mt19937 rng(20240611u);
  shim::TempDir tmp;
  int ok = 0, diagnosed = 0, compiled = 0;
  // JOULE_SHIM_ROBUSTNESS_RUNS=N runs longer (by hand; the default keeps ctest short).
  const char* env = std::getenv("JOULE_SHIM_ROBUSTNESS_RUNS");
  const int kRuns = env ? std::atoi(env) : 250;
  for (int run = 0; run < kRuns; run++) {
    std::string p1 = mutate(kSeeds[rng() % 10], rng), p2 = mutate(kSeeds[rng() % 10], rng);
    std::string text = program(p1, p2);
    joulecc::TranslateOptions o;
    o.input = "fuzz.c";
    o.contents = &text;
    o.resource_dir = SHIM_RESOURCE_DIR;
    std::string diags;
    o.diagnostics = &diags;
    joulecc::TranslateResult r;
    int rc = joulecc::translate(o, r);
    ASSERT_TRUE(rc == 0 || rc == 1);
    if (rc == 1) {
      ++diagnosed;
      EXPECT_NE(diags.find("fuzz.c:"), std::string::npos) << p1 << "\n" << p2 << "\n" << diags;
      EXPECT_NE(diags.find("error: "), std::string::npos) << diags;
      continue;
    }
    ++ok;
    if (compiled >= 40) continue;  // compiling is slower; a sample is enough
    ++compiled;
    shim::write_file(tmp.path() + "/fuzz.c", r.output);
    shim::Result c = shim::run(
        "cd " + shim::quote(tmp.path()) + " && gcc -fsyntax-only -w -I" +
        shim::quote(std::string(SHIM_DIR) + "/../../api/include") + " -I" +
        shim::quote(std::string(SHIM_DIR) + "/../../api/vocab") + " -I" +
        shim::quote(std::string(SHIM_DIR) + "/../../api/adapters/ompss/include") + " fuzz.c");
    for (const std::string& line : shim::split_lines(c.output)) {
      if (line.find("error:") != std::string::npos) {
        EXPECT_EQ(line.rfind("fuzz.c:", 0), 0u) << p1 << "\n" << p2 << "\n" << c.output;
      }
    }
  }
  std::printf("robustness: %d translated (%d compiled), %d diagnosed\n", ok, compiled, diagnosed);
  EXPECT_GT(ok, 10);
  EXPECT_GT(diagnosed, 10);
}

}  // namespace
