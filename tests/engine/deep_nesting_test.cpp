// Task nesting deeper than one thread's stack (stack_segments.hpp): nested
// spawn + taskwait 50 000 levels deep (a segfault at ~40 000 before), the
// serial inline mode's deferred recursive spawns 200 000 deep (a segfault
// at ~100 000 before), on 1, 2 and more workers than CPUs; worker stacks of
// JOULE_STACK_SIZE (and OMP_STACKSIZE through the omp keys); bad sizes
// refused with the key and the range.
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "config.hpp"
#include "engine_settings.hpp"
#include "joule/joule.hpp"
#include "runtime.hpp"
#include "stack_segments.hpp"
#include "test_support.hpp"

namespace joule::engine {
namespace {

using joule_test::under_sanitizer;

constexpr int kNested = under_sanitizer() ? 20000 : 50000;

// ThreadSanitizer keeps a shadow call stack and stops at 65 536 frames
// (sanitizer_stackdepot.cpp): nesting this deep is beyond what it tracks.
#if defined(__SANITIZE_THREAD__)
constexpr bool kUnderTsan = true;
#else
constexpr bool kUnderTsan = false;
#endif

std::atomic<int> g_deepest{0};

// Each level spawns the next and waits for it: the waiting thread helps by
// running the child on top of its own frames.
long nested(int depth) {
  if (depth == 0) return 0;
  long below = 0;
  joule::spawn([&below, depth] { below = nested(depth - 1); });
  joule::taskwait();
  int seen = StackSegments::depth();
  int was = g_deepest.load();
  while (seen > was && !g_deepest.compare_exchange_weak(was, seen)) {
  }
  return below + 1;
}

TEST(DeepNesting, SpawnAndTaskwaitBeyondOneStack) {
  if (kUnderTsan) GTEST_SKIP() << "deeper than ThreadSanitizer's shadow stack";
  for (int workers : {1, 2, 4}) {
    joule::runtime rt({{"JOULE_WORKERS", std::to_string(workers)}, {"JOULE_LENDING", "off"}});
    g_deepest = 0;
    long got = 0;
    joule::spawn([&got] { got = nested(kNested); });
    joule::taskwait();
    EXPECT_EQ(got, kNested) << workers << " workers";
    EXPECT_GT(g_deepest.load(), 0) << "the nesting needed more than one stack";
  }
}

// One worker runs every spawn inline (JOULE_SERIAL_INLINE): a chain of
// tasks each spawning the next, with no taskwait, is recursion.
void chain(std::atomic<long>* count, int left) {
  count->fetch_add(1, std::memory_order_relaxed);
  if (left > 0) joule::spawn([count, left] { chain(count, left - 1); });
}

TEST(DeepNesting, SerialInlineRecursiveSpawns) {
  if (kUnderTsan) GTEST_SKIP() << "deeper than ThreadSanitizer's shadow stack";
  const int depth = under_sanitizer() ? 50000 : 200000;
  joule::runtime rt({{"JOULE_WORKERS", "1"}, {"JOULE_LENDING", "off"}});
  std::atomic<long> count{0};
  joule::spawn([&count, depth] { chain(&count, depth); });
  joule::taskwait();
  EXPECT_EQ(count.load(), depth + 1);
}

// Two tasks that wait for each other to start: one runs on worker 1.
std::size_t worker_stack_bytes() {
  std::atomic<int> arrived{0};
  std::atomic<std::size_t> size{0};
  for (int k = 0; k < 2; ++k)
    joule::spawn([&] {
      arrived.fetch_add(1);
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (arrived.load() < 2 && std::chrono::steady_clock::now() < until) {
      }
      if (joule::worker_id() != 1) return;
      pthread_attr_t attr;
      std::size_t bytes = 0;
      pthread_getattr_np(pthread_self(), &attr);
      pthread_attr_getstacksize(&attr, &bytes);
      pthread_attr_destroy(&attr);
      size = bytes;
    });
  joule::taskwait();
  return size.load();
}

// Larger than the default 8 MiB: glibc may hand a thread a cached stack
// of up to 4x the size asked for, never a smaller one.
TEST(DeepNesting, WorkerStacksHaveJouleStackSize) {
  joule::runtime rt({{"JOULE_WORKERS", "2"}, {"JOULE_STACK_SIZE", "32M"}});
  EXPECT_GE(worker_stack_bytes(), std::size_t(32) << 20);
  EXPECT_EQ(StackSegments::segment_bytes(), std::size_t(32) << 20);
}

std::string config_error(const core::Settings& s) {
  try {
    core::Config::load(s);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::uint64_t stack_bytes(const core::Settings& s) {
  return core::Config::load(s).get<EngineSettings>().stack_bytes;
}

TEST(DeepNesting, StackSizeKeys) {
  { joule::runtime rt({{"JOULE_WORKERS", "1"}}); }  // every layer's keys are known now
  EXPECT_EQ(stack_bytes({{"JOULE_STACK_SIZE", "512K"}}), 512u << 10);
  EXPECT_EQ(stack_bytes({{"JOULE_STACK_SIZE", "1024"}}), 1u << 20) << "no suffix: KiB";
  for (const char* bad : {"2", "2G", "16Q", "-1M", "lots"}) {
    const std::string msg = config_error({{"JOULE_STACK_SIZE", bad}});
    EXPECT_NE(msg.find("JOULE_STACK_SIZE"), std::string::npos) << bad << ": " << msg;
    EXPECT_NE(msg.find("64K..1G"), std::string::npos) << bad << ": " << msg;
  }
  // OMP_STACKSIZE sizes the workers' stacks unless JOULE_STACK_SIZE does,
  // in either order.
  EXPECT_EQ(stack_bytes({{"OMP_STACKSIZE", "16M"}}), 16u << 20);
  EXPECT_EQ(stack_bytes({{"OMP_STACKSIZE", "16M"}, {"JOULE_STACK_SIZE", "1M"}}), 1u << 20);
  EXPECT_EQ(stack_bytes({{"JOULE_STACK_SIZE", "1M"}, {"OMP_STACKSIZE", "16M"}}), 1u << 20);
}

}  // namespace
}  // namespace joule::engine
