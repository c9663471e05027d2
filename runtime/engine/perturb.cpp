#include "perturb.hpp"

#include <sched.h>
#include <time.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace joule::engine::perturb {
namespace {

std::atomic<std::uint64_t> g_seed{0};
// Threads draw their stream from the seed and the order they first passed a
// point in (a thread's stream is reproducible, their interleaving is not).
std::atomic<std::uint64_t> g_threads{0};
std::array<std::atomic<std::uint64_t>, std::size_t(SyncPoint::count)> g_points{};
std::atomic<std::uint64_t> g_yields{0};
std::atomic<std::uint64_t> g_sleeps{0};

struct Stream {
  std::uint64_t seed = 0;  // the seed this stream was drawn for
  std::uint64_t state = 0;
};
thread_local Stream t_stream;

// splitmix64 (S. Vigna): a full-period stream from any seed.
std::uint64_t next(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

const char* const kNames[] = {"push",     "pop",      "steal",      "sleep",  "wake",
                              "taskwait", "complete", "team_spawn", "lending"};
static_assert(sizeof kNames / sizeof kNames[0] == std::size_t(SyncPoint::count));

}  // namespace

bool built() noexcept {
#if defined(JOULE_PERTURB)
  return true;
#else
  return false;
#endif
}

void start(std::uint64_t seed) {
  if (seed && !built())
    throw std::runtime_error(
        "JOULE_PERTURB_SEED is set, but this libjoule was built without the perturbation "
        "points: run the test variant (configure with -DJOULE_PERTURB=ON, then "
        "LD_LIBRARY_PATH=<build>/perturb)");
  for (auto& p : g_points) p.store(0, std::memory_order_relaxed);
  g_yields.store(0, std::memory_order_relaxed);
  g_sleeps.store(0, std::memory_order_relaxed);
  g_seed.store(seed, std::memory_order_release);
}

void stop() noexcept {
  const std::uint64_t seed = g_seed.exchange(0, std::memory_order_acq_rel);
  if (!seed) return;
  std::string line = "joule: perturbation seed " + std::to_string(seed) + ":";
  std::uint64_t all = 0;
  for (std::size_t i = 0; i < g_points.size(); ++i) {
    const std::uint64_t n = g_points[i].load(std::memory_order_relaxed);
    all += n;
    line += " " + std::string(kNames[i]) + " " + std::to_string(n);
  }
  line += "; " + std::to_string(all) + " points, " +
          std::to_string(g_yields.load(std::memory_order_relaxed)) + " yields, " +
          std::to_string(g_sleeps.load(std::memory_order_relaxed)) + " sleeps\n";
  std::fputs(line.c_str(), stderr);
}

// One in four points yields, one in sixteen sleeps 1-64 us: often enough to
// reorder threads at every kind of point within a short run, rarely enough
// that a run of a few thousand tasks stays well under a second.
void point(SyncPoint where) noexcept {
  const std::uint64_t seed = g_seed.load(std::memory_order_relaxed);
  if (!seed) return;
  g_points[std::size_t(where)].fetch_add(1, std::memory_order_relaxed);
  Stream& s = t_stream;
  if (s.seed != seed) {
    s.seed = seed;
    s.state = seed ^ (g_threads.fetch_add(1, std::memory_order_relaxed) * 0x2545f4914f6cdd1dull);
  }
  const std::uint64_t r = next(s.state);
  switch (r & 15) {
    case 0:
    case 1:
    case 2:
    case 3:
      g_yields.fetch_add(1, std::memory_order_relaxed);
      sched_yield();
      break;
    case 4: {
      g_sleeps.fetch_add(1, std::memory_order_relaxed);
      const timespec ts{0, long(1000 + ((r >> 8) & 63) * 1000)};
      nanosleep(&ts, nullptr);
      break;
    }
    default:
      break;
  }
}

}  // namespace joule::engine::perturb
