// Target regions through the ABI, as GCC 12's code calls it, so that the
// sanitizer builds check them too: target nowait tasks ordered by their
// dependences (each step of a chain depends on the one before), readers
// fanning out, update and enter/exit data tasks in the chain, firstprivate
// data copied before the caller's arrays change, regions inside a team,
// on 2, 8 and 32 workers (more than the CPUs).
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "joule/joule.h"

extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);
void GOMP_taskwait(void);
void GOMP_target_ext(int, void (*)(void*), std::size_t, void**, std::size_t*, unsigned short*,
                     unsigned, void**, void**);
void GOMP_target(int, void (*)(void*), const void*, std::size_t, void**, std::size_t*,
                 unsigned char*);
void GOMP_target_update_ext(int, std::size_t, void**, std::size_t*, unsigned short*, unsigned,
                            void**);
void GOMP_target_enter_exit_data(int, std::size_t, void**, std::size_t*, unsigned short*, unsigned,
                                 void**);
void GOMP_offload_register_ver(unsigned, const void*, int, const void*);
void GOMP_offload_unregister_ver(unsigned, const void*, int, const void*);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_level(void);
int omp_in_parallel(void);
int omp_get_thread_limit(void);
void* omp_target_alloc(std::size_t, int);
void omp_target_free(void*, int);
int omp_target_is_present(const void*, int);
int omp_target_memcpy(void*, const void*, std::size_t, std::size_t, std::size_t, int, int);
}

namespace {

// gomp-constants.h values, as GCC 12 passes them.
constexpr unsigned kNowait = 1;                 // GOMP_TARGET_FLAG_NOWAIT
constexpr unsigned short kToFrom = 3 | 3 << 8;  // tofrom, 8-byte aligned
constexpr unsigned short kFirstprivate = 12 | 3 << 8;
constexpr unsigned short kFirstprivateInt = 13;
constexpr std::uintptr_t kThreadLimitArg = 2 << 8;  // GOMP_TARGET_ARG_THREAD_LIMIT

constexpr int kSteps = 40;
constexpr int kReaders = 16;

struct Chain {
  long x = 1;
  long seen[kReaders] = {};
  long after = 0;
};

// x = 3x + step + extra[0] - extra[1]: the result depends on the order,
// and extra (firstprivate) must be the caller's values at the call.
void step_fn(void* p) {
  void** a = static_cast<void**>(p);
  auto* x = static_cast<long*>(a[0]);
  const auto step = long(reinterpret_cast<std::intptr_t>(a[1]));
  const long* extra = static_cast<const long*>(a[2]);
  *x = *x * 3 + step + extra[0] - extra[1];
}

void read_fn(void* p) {
  void** a = static_cast<void**>(p);
  *static_cast<long*>(a[1]) = *static_cast<long*>(a[0]) + 1;
}

// Old layout: {count, outs, addresses...}; outs first.
void chain_tasks(Chain& c) {
  void* args[] = {nullptr};
  for (int i = 0; i < kSteps; ++i) {
    long extra[2] = {i % 5, 2};
    void* addrs[3] = {&c.x, reinterpret_cast<void*>(std::intptr_t(i)), extra};
    std::size_t sizes[3] = {sizeof(long), 0, sizeof extra};
    unsigned short kinds[3] = {kToFrom, kFirstprivateInt, kFirstprivate};
    void* dep[3] = {reinterpret_cast<void*>(1), reinterpret_cast<void*>(1), &c.x};
    GOMP_target_ext(-1, step_fn, 3, addrs, sizes, kinds, kNowait, dep, args);
    std::memset(extra, 0x5a, sizeof extra);  // the task has its own copy
    void* upd[3] = {reinterpret_cast<void*>(1), reinterpret_cast<void*>(1), &c.x};
    if (i % 8 == 0) GOMP_target_update_ext(-1, 1, addrs, sizes, kinds, kNowait, upd);
  }
  for (int r = 0; r < kReaders; ++r) {
    void* addrs[2] = {&c.x, &c.seen[r]};
    std::size_t sizes[2] = {sizeof(long), sizeof(long)};
    unsigned short kinds[2] = {kToFrom, kToFrom};
    void* dep[4] = {reinterpret_cast<void*>(2), reinterpret_cast<void*>(1), &c.seen[r], &c.x};
    GOMP_target_ext(-1, read_fn, 2, addrs, sizes, kinds, kNowait, dep, args);
  }
  // Undeferred with depend: waits for the chain's writers, then runs.
  void* dep[3] = {reinterpret_cast<void*>(1), reinterpret_cast<void*>(0), &c.x};
  GOMP_target_enter_exit_data(-1, 0, nullptr, nullptr, nullptr, 0, dep);
  c.after = c.x;
  GOMP_taskwait();
}

long expected_chain() {
  long x = 1;
  for (int i = 0; i < kSteps; ++i) x = x * 3 + i + i % 5 - 2;
  return x;
}

void expect_chain(const Chain& c) {
  const long want = expected_chain();
  EXPECT_EQ(c.x, want);
  EXPECT_EQ(c.after, want);
  for (long s : c.seen) EXPECT_EQ(s, want + 1);
}

// A team whose thread 0 makes the tasks; the others run them at the barrier.
void chain_in_team(void* p) {
  if (omp_get_thread_num() == 0) chain_tasks(*static_cast<Chain*>(p));
  GOMP_barrier();
}

struct RegionSeen {
  std::atomic<int> ok{0};
  std::atomic<int> regions{0};
};

void inner_member(void* p) {
  auto* inner = static_cast<std::atomic<int>*>(p);
  if (omp_get_level() == 1 && omp_get_num_threads() <= 3) inner->fetch_add(1);
}

// Inside a region: level 0, not in parallel, its thread limit; a parallel
// inside is a new team of at most that many threads, at level 1.
void region_fn(void* p) {
  auto* seen = static_cast<RegionSeen*>(static_cast<void**>(p)[0]);
  std::atomic<int> inner{0};
  GOMP_parallel(inner_member, &inner, 0, 0);
  const bool fine = omp_get_level() == 0 && !omp_in_parallel() && omp_get_thread_limit() == 3 &&
                    omp_get_num_threads() == 1 && inner.load() >= 1 && inner.load() <= 3;
  if (fine) seen->ok.fetch_add(1);
  seen->regions.fetch_add(1);
}

void region_in_member(void* p) {
  void* addrs[1] = {p};
  std::size_t sizes[1] = {0};
  unsigned short kinds[1] = {kFirstprivateInt};
  void* args[] = {reinterpret_cast<void*>(std::uintptr_t(3) << 16 | kThreadLimitArg), nullptr};
  GOMP_target_ext(-1, region_fn, 1, addrs, sizes, kinds, 0, nullptr, args);
}

class TargetOn : public ::testing::Test {
 protected:
  static void start(const char* workers) {
    const char* keys[] = {"JOULE_WORKERS"};
    const char* values[] = {workers};
    ASSERT_EQ(joule_init_with(keys, values, 1), JOULE_OK) << joule_last_error();
  }
  static void TearDownTestSuite() { joule_finalize(); }

  static void nowait_chain_outside_teams() {
    Chain c;
    chain_tasks(c);
    expect_chain(c);
  }
  static void nowait_chain_in_team() {
    for (unsigned n : {2u, 4u, 0u}) {
      Chain c;
      GOMP_parallel(chain_in_team, &c, n, 0);
      expect_chain(c);
    }
  }
  static void regions_in_team() {
    RegionSeen seen;
    GOMP_parallel(region_in_member, &seen, 0, 0);
    EXPECT_GE(seen.regions.load(), 1);
    EXPECT_EQ(seen.ok.load(), seen.regions.load());
  }
};

class TargetOn2 : public TargetOn {
 protected:
  static void SetUpTestSuite() { start("2"); }
};
class TargetOn8 : public TargetOn {
 protected:
  static void SetUpTestSuite() { start("8"); }
};
class TargetOn32 : public TargetOn {
 protected:
  static void SetUpTestSuite() { start("32"); }
};

TEST_F(TargetOn2, NowaitChainOutsideTeams) { nowait_chain_outside_teams(); }
TEST_F(TargetOn2, NowaitChainInTeam) { nowait_chain_in_team(); }
TEST_F(TargetOn2, RegionsInTeam) { regions_in_team(); }
TEST_F(TargetOn8, NowaitChainOutsideTeams) { nowait_chain_outside_teams(); }
TEST_F(TargetOn8, NowaitChainInTeam) { nowait_chain_in_team(); }
TEST_F(TargetOn8, RegionsInTeam) { regions_in_team(); }
TEST_F(TargetOn32, NowaitChainOutsideTeams) { nowait_chain_outside_teams(); }
TEST_F(TargetOn32, NowaitChainInTeam) { nowait_chain_in_team(); }
TEST_F(TargetOn32, RegionsInTeam) { regions_in_team(); }

void add_one(void* p) { ++*static_cast<long*>(static_cast<void**>(p)[0]); }

// GCC before 5: no firstprivate, no flags; offload images are accepted.
TEST_F(TargetOn8, OldFormAndOffloadImages) {
  long x = 41;
  void* addrs[1] = {&x};
  std::size_t sizes[1] = {sizeof x};
  unsigned char kinds[1] = {3};
  GOMP_offload_register_ver(0x10001, nullptr, 5, nullptr);
  GOMP_target(-1, add_one, nullptr, 1, addrs, sizes, kinds);
  GOMP_offload_unregister_ver(0x10001, nullptr, 5, nullptr);
  EXPECT_EQ(x, 42);
}

// omp_initial_device (-1) and omp_get_initial_device() (0) are the host.
TEST_F(TargetOn8, DeviceMemoryOnTheHost) {
  for (int dev : {-1, 0}) {
    auto* p = static_cast<long*>(omp_target_alloc(4 * sizeof(long), dev));
    ASSERT_NE(p, nullptr);
    const long src[4] = {1, 2, 3, 4};
    EXPECT_EQ(omp_target_memcpy(p, src, sizeof src, 0, 0, dev, 0), 0);
    EXPECT_EQ(p[3], 4);
    EXPECT_TRUE(omp_target_is_present(p, dev));
    omp_target_free(p, dev);
  }
  long x = 0;
  EXPECT_EQ(omp_target_alloc(8, 1), nullptr);
  EXPECT_FALSE(omp_target_is_present(&x, 1));
  EXPECT_EQ(omp_target_memcpy(&x, &x, 8, 0, 0, -1, 1), EINVAL);
}

}  // namespace
