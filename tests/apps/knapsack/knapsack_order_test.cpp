// The order tasks run in decides how much of a branch-and-bound tree is
// explored: a good solution found early prunes the rest. The knapsack
// program runs unchanged (gcc -fopenmp) on libgomp and, preloaded, on
// libjoule-omp; joule must explore no more than twice the nodes of the
// sequential order (one thread, every task run in place) at 1, 2 and 16
// threads, nor twice what libgomp explores with 1 and 2 threads. Node counts at several threads
// depend on timing, so each figure is the median of three runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Run {
  long nodes = -1;
  double seconds = 0;
};

// items 40, cutoff 14, seed 7: a few million nodes, ~0.1 s.
constexpr const char* kInstance = "40 14 7";

Run run(const std::string& env, const char* args = kInstance) {
  const std::string cmd = env + " " + JOULE_KNAPSACK_EXE + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {};
  char line[512] = {};
  Run r;
  while (std::fgets(line, sizeof line, p)) {
    int best = 0, threads = 0;
    if (std::sscanf(line, "best %d nodes %ld seconds %lf threads %d", &best, &r.nodes, &r.seconds,
                    &threads) != 4)
      ADD_FAILURE() << cmd << ": " << line;
  }
  EXPECT_EQ(pclose(p), 0) << cmd;  // non-zero: the answer differs from dynamic programming
  return r;
}

std::string on_joule(int threads) {
  return "LD_PRELOAD=" + std::string(JOULE_GOMP_LIB) +
         " OMP_NUM_THREADS=" + std::to_string(threads);
}
std::string on_libgomp(int threads) { return "OMP_NUM_THREADS=" + std::to_string(threads); }

long median_nodes(const std::string& env) {
  std::vector<long> n;
  for (int i = 0; i < 3; ++i) n.push_back(run(env).nodes);
  std::sort(n.begin(), n.end());
  return n[1];
}

TEST(KnapsackOrder, NodesWithinTwiceTheSequentialOrderAndLibgomp) {
  // The sequential order: one thread, cutoff 0 (no task deferred).
  const long sequential = run(on_libgomp(1), "40 0 7").nodes;
  ASSERT_GT(sequential, 0);
  for (int threads : {1, 2, 16}) {
    const long joule = median_nodes(on_joule(threads));
    const long gomp = median_nodes(on_libgomp(threads));
    EXPECT_LE(joule, 2 * sequential) << threads << " threads";
    // With 16 threads on this machine's 2 CPUs the count swings by 5x from
    // run to run on libgomp itself: compared where it is stable.
    if (threads <= 2) EXPECT_LE(joule, 2 * gomp) << threads << " threads: libgomp " << gomp;
    std::printf("threads %2d: joule %ld nodes, libgomp %ld, sequential order %ld\n", threads, joule,
                gomp, sequential);
  }
}

// Interleaved runs, the best of five each: the search, not the start-up.
// The target is 1.5x (measured ~1.0 on a quiet host, docs/performance.md);
// the bound is generous because this host has phases where every 2-thread
// figure of every runtime is 3-4 times slower, which best-of-five does not
// always escape.
TEST(KnapsackTime, TwoThreadsWithinTwiceAndAHalfOfLibgomp) {
  double joule = 1e9, gomp = 1e9;
  for (int i = 0; i < 5; ++i) {
    gomp = std::min(gomp, run(on_libgomp(2)).seconds);
    joule = std::min(joule, run(on_joule(2)).seconds);
  }
  std::printf("2 threads: joule %.4f s, libgomp %.4f s (ratio %.2f)\n", joule, gomp, joule / gomp);
  EXPECT_LE(joule, 2.5 * gomp);
}

}  // namespace
