// Doacross loops, detachable tasks, the pre-4.9 combined starts and team
// scratch, called through the GOMP_* ABI the way GCC's outlined code calls
// them (see `gcc -fopenmp -fdump-tree-ompexp`), so that the sanitizer
// builds check them too. Teams of 2, 8 and 32 on 32 workers (more than the
// CPUs): waits must block, not spin with the poster descheduled.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "joule/joule.h"

extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
void GOMP_parallel_end(void);
void GOMP_parallel_loop_static_start(void (*)(void*), void*, unsigned, long, long, long, long);
void GOMP_parallel_loop_dynamic_start(void (*)(void*), void*, unsigned, long, long, long, long);
void GOMP_parallel_loop_guided_start(void (*)(void*), void*, unsigned, long, long, long, long);
void GOMP_parallel_loop_runtime_start(void (*)(void*), void*, unsigned, long, long, long);
void GOMP_parallel_sections_start(void (*)(void*), void*, unsigned, unsigned);
bool GOMP_loop_doacross_static_start(unsigned, long*, long, long*, long*);
bool GOMP_loop_doacross_dynamic_start(unsigned, long*, long, long*, long*);
bool GOMP_loop_doacross_start(unsigned, long*, long, long, long*, long*, std::uintptr_t*, void**);
bool GOMP_loop_ull_doacross_guided_start(unsigned, unsigned long long*, unsigned long long,
                                         unsigned long long*, unsigned long long*);
bool GOMP_loop_static_next(long*, long*);
bool GOMP_loop_dynamic_next(long*, long*);
bool GOMP_loop_guided_next(long*, long*);
bool GOMP_loop_runtime_next(long*, long*);
bool GOMP_loop_ull_guided_next(unsigned long long*, unsigned long long*);
bool GOMP_loop_ull_start(bool, unsigned long long, unsigned long long, unsigned long long, long,
                         unsigned long long, unsigned long long*, unsigned long long*,
                         std::uintptr_t*, void**);
bool GOMP_loop_ull_ordered_start(bool, unsigned long long, unsigned long long, unsigned long long,
                                 long, unsigned long long, unsigned long long*, unsigned long long*,
                                 std::uintptr_t*, void**);
unsigned GOMP_sections2_start(unsigned, std::uintptr_t*, void**);
unsigned GOMP_sections_next(void);
void GOMP_sections_end(void);
void GOMP_doacross_post(long*);
void GOMP_doacross_wait(long, ...);
void GOMP_doacross_ull_post(unsigned long long*);
void GOMP_doacross_ull_wait(unsigned long long, ...);
void GOMP_loop_end(void);
void GOMP_loop_end_nowait(void);
void GOMP_barrier(void);
void GOMP_task(void (*)(void*), void*, void (*)(void*, void*), long, long, bool, unsigned, void**,
               int, void*);
void GOMP_taskwait(void);
void omp_fulfill_event(std::uintptr_t);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
}

namespace {

constexpr unsigned kDetach = 1u << 13;  // gcc's gomp-constants.h: GOMP_TASK_FLAG_DETACH
constexpr unsigned kDepend = 1u << 3;   // GOMP_TASK_FLAG_DEPEND

class GompSync : public ::testing::TestWithParam<unsigned> {
 protected:
  static void SetUpTestSuite() {
    const char* keys[] = {"JOULE_WORKERS", "JOULE_SPIN_US"};
    const char* values[] = {"32", "0"};
    ASSERT_EQ(joule_init_with(keys, values, 2), JOULE_OK) << joule_last_error();
  }
  static void TearDownTestSuite() { joule_finalize(); }
};

template <class F>
void parallel(F f, unsigned n) {
  GOMP_parallel([](void* d) { (*static_cast<F*>(d))(); }, &f, n, 0);
}

std::uint64_t step(std::uint64_t a, std::uint64_t b) { return (a * 31 + b * 7 + 1) % 1000003; }

// 1-D: iteration i waits for i-1 (and i-2, out of range for the first ones).
TEST_P(GompSync, DoacrossChainsInOrder) {
  constexpr long kN = 500;
  std::vector<std::uint64_t> a(kN + 2), ref(kN + 2);
  for (long i = 0; i < kN + 2; ++i) a[std::size_t(i)] = ref[std::size_t(i)] = std::uint64_t(i);
  for (long i = 2; i < kN + 2; ++i)
    ref[std::size_t(i)] = step(ref[std::size_t(i - 1)], ref[std::size_t(i - 2)]);
  for (int kind = 0; kind < 2; ++kind) {
    for (long i = 0; i < kN + 2; ++i) a[std::size_t(i)] = std::uint64_t(i);
    parallel(
        [&] {
          long counts[1] = {kN}, lo = 0, hi = 0;
          bool more = kind == 0 ? GOMP_loop_doacross_static_start(1, counts, 3, &lo, &hi)
                                : GOMP_loop_doacross_dynamic_start(1, counts, 2, &lo, &hi);
          while (more) {
            for (long i = lo; i < hi; ++i) {
              GOMP_doacross_wait(i - 1);
              GOMP_doacross_wait(i - 2);
              a[std::size_t(i + 2)] = step(a[std::size_t(i + 1)], a[std::size_t(i)]);
              GOMP_doacross_post(&i);
            }
            more = kind == 0 ? GOMP_loop_static_next(&lo, &hi) : GOMP_loop_dynamic_next(&lo, &hi);
          }
          GOMP_loop_end();
        },
        GetParam());
    EXPECT_EQ(a, ref) << "schedule " << kind;
  }
}

// 2-D wavefront over the generic entry (any schedule): (i,j) needs (i-1,j)
// and (i,j-1); sinks past either edge are ignored.
TEST_P(GompSync, DoacrossWavefront2D) {
  constexpr long kI = 60, kJ = 40;
  std::vector<std::uint64_t> g(kI * kJ), ref(kI * kJ);
  for (long k = 0; k < kI * kJ; ++k) g[std::size_t(k)] = ref[std::size_t(k)] = std::uint64_t(k);
  auto at = [](std::vector<std::uint64_t>& v, long i, long j) -> std::uint64_t& {
    return v[std::size_t(i * kJ + j)];
  };
  for (long i = 1; i < kI; ++i)
    for (long j = 1; j < kJ; ++j) at(ref, i, j) = step(at(ref, i - 1, j), at(ref, i, j - 1));
  parallel(
      [&] {
        long counts[2] = {kI, kJ}, lo = 0, hi = 0;
        bool more =
            GOMP_loop_doacross_start(2, counts, 3 /* guided */, 1, &lo, &hi, nullptr, nullptr);
        while (more) {
          for (long i = lo; i < hi; ++i)
            for (long j = 0; j < kJ; ++j) {
              GOMP_doacross_wait(i - 1, j);
              GOMP_doacross_wait(i, j - 1);
              GOMP_doacross_wait(i + 1, kJ);  // outside the space: ignored
              if (i > 0 && j > 0) at(g, i, j) = step(at(g, i - 1, j), at(g, i, j - 1));
              long iter[2] = {i, j};
              GOMP_doacross_post(iter);
            }
          more = GOMP_loop_guided_next(&lo, &hi);
        }
        GOMP_loop_end_nowait();
        GOMP_barrier();
      },
      GetParam());
  EXPECT_EQ(g, ref);
}

TEST_P(GompSync, DoacrossUnsigned) {
  constexpr unsigned long long kN = 1500;
  std::vector<std::uint64_t> a(kN + 1), ref(kN + 1);
  for (std::size_t i = 0; i <= kN; ++i) a[i] = ref[i] = i;
  for (std::size_t i = 1; i <= kN; ++i) ref[i] = step(ref[i - 1], i);
  parallel(
      [&] {
        unsigned long long counts[1] = {kN}, lo = 0, hi = 0;
        bool more = GOMP_loop_ull_doacross_guided_start(1, counts, 4, &lo, &hi);
        while (more) {
          for (unsigned long long i = lo; i < hi; ++i) {
            GOMP_doacross_ull_wait(i - 1);  // wraps for i = 0: outside, ignored
            a[i + 1] = step(a[i], i + 1);
            GOMP_doacross_ull_post(&i);
          }
          more = GOMP_loop_ull_guided_next(&lo, &hi);
        }
        GOMP_loop_end();
      },
      GetParam());
  EXPECT_EQ(a, ref);
}

// The body ends, then a thread outside the team fulfils the event; the
// taskwait (and a depend(in) successor) must wait for the fulfil.
TEST_P(GompSync, DetachFulfilledFromAnotherThread) {
  struct Shared {
    std::atomic<int> body{0}, fulfilled{0}, seen_by_successor{-1}, seen_after_wait{-1};
    std::uintptr_t ev = 0;
    int x = 0;
  } sh;
  parallel(
      [&] {
        if (omp_get_thread_num() != 0) return;
        Shared* p = &sh;
        void* depend_out[3] = {reinterpret_cast<void*>(1), reinterpret_cast<void*>(1), &sh.x};
        GOMP_task([](void* d) { (*static_cast<Shared**>(d))->body = 1; }, &p, nullptr, sizeof p,
                  alignof(Shared*), true, kDetach | kDepend, depend_out, 0, &sh.ev);
        void* depend_in[3] = {reinterpret_cast<void*>(1), reinterpret_cast<void*>(0), &sh.x};
        GOMP_task(
            [](void* d) {
              Shared* s = *static_cast<Shared**>(d);
              s->seen_by_successor = s->fulfilled.load();
            },
            &p, nullptr, sizeof p, alignof(Shared*), true, kDepend, depend_in, 0, nullptr);
        std::thread fulfiller([&] {
          while (!sh.body.load()) std::this_thread::yield();
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
          sh.fulfilled = 1;
          omp_fulfill_event(sh.ev);
        });
        GOMP_taskwait();
        sh.seen_after_wait = sh.fulfilled.load();
        fulfiller.join();
      },
      GetParam());
  EXPECT_EQ(sh.seen_by_successor.load(), 1);
  EXPECT_EQ(sh.seen_after_wait.load(), 1);
}

// The pre-4.9 combined forms: the caller runs the body as the master,
// then GOMP_parallel_end; every iteration (section) runs once.
struct Legacy {
  std::vector<std::atomic<int>>* hits;
  std::atomic<int> members{0};
  bool (*next)(long*, long*);
};

void legacy_loop_body(void* p) {
  auto* l = static_cast<Legacy*>(p);
  l->members++;
  long lo = 0, hi = 0;
  while (l->next(&lo, &hi))
    for (long i = lo; i < hi; i += 2) (*l->hits)[std::size_t(i)]++;
  GOMP_loop_end_nowait();
}

void legacy_sections_body(void* p) {
  auto* l = static_cast<Legacy*>(p);
  l->members++;
  for (unsigned s = GOMP_sections_next(); s != 0; s = GOMP_sections_next()) (*l->hits)[s - 1]++;
  GOMP_sections_end();
}

TEST_P(GompSync, LegacyCombinedStarts) {
  using Start = void (*)(void (*)(void*), void*, unsigned, long, long, long, long);
  const Start starts[] = {GOMP_parallel_loop_static_start, GOMP_parallel_loop_dynamic_start,
                          GOMP_parallel_loop_guided_start, nullptr};
  bool (*nexts[])(long*, long*) = {GOMP_loop_static_next, GOMP_loop_dynamic_next,
                                   GOMP_loop_guided_next, GOMP_loop_runtime_next};
  const unsigned n = GetParam();
  for (int k = 0; k < 4; ++k) {
    std::vector<std::atomic<int>> hits(1000);
    Legacy l{&hits, {0}, nexts[k]};
    if (starts[k])
      starts[k](legacy_loop_body, &l, n, 0, 1000, 2, 3);
    else
      GOMP_parallel_loop_runtime_start(legacy_loop_body, &l, n, 0, 1000, 2);
    legacy_loop_body(&l);  // the master, as GCC's caller does
    GOMP_parallel_end();
    EXPECT_EQ(l.members.load(), int(n)) << "kind " << k;
    for (std::size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), i % 2 ? 0 : 1) << i;
  }
  std::vector<std::atomic<int>> sections(37);
  Legacy l{&sections, {0}, nullptr};
  GOMP_parallel_sections_start(legacy_sections_body, &l, n, 37);
  legacy_sections_body(&l);
  GOMP_parallel_end();
  EXPECT_EQ(l.members.load(), int(n));
  for (auto& s : sections) EXPECT_EQ(s.load(), 1);
}

// Team scratch (GCC's `mem`): one zeroed block of at least the size asked,
// the same for every member, on unsigned loops, their ordered form and
// sections.
TEST_P(GompSync, TeamScratchIsShared) {
  const unsigned n = GetParam();
  std::vector<void*> got(3 * n, nullptr);
  std::atomic<int> nonzero{0};
  parallel(
      [&] {
        const auto id = std::size_t(omp_get_thread_num());
        auto take = [&](void* mem, std::size_t k) {
          got[k * n + id] = mem;
          for (std::size_t b = 0; b < 256; ++b)
            if (static_cast<unsigned char*>(mem)[b]) nonzero++;
        };
        unsigned long long lo = 0, hi = 0;
        void* mem = reinterpret_cast<void*>(std::uintptr_t(256));
        GOMP_loop_ull_start(true, 0, 100, 1, 2, 1, &lo, &hi, nullptr, &mem);
        take(mem, 0);
        GOMP_loop_end();
        mem = reinterpret_cast<void*>(std::uintptr_t(256));
        GOMP_loop_ull_ordered_start(true, 0, 100, 1, 1, 0, &lo, &hi, nullptr, &mem);
        take(mem, 1);
        GOMP_loop_end();
        mem = reinterpret_cast<void*>(std::uintptr_t(256));
        GOMP_sections2_start(5, nullptr, &mem);
        take(mem, 2);
        while (GOMP_sections_next() != 0) {
        }
        GOMP_sections_end();
      },
      n);
  EXPECT_EQ(nonzero.load(), 0);
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_NE(got[k * n + i], nullptr);
      EXPECT_EQ(got[k * n + i], got[k * n]) << "construct " << k << " member " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Teams, GompSync, ::testing::Values(2u, 8u, 32u));

}  // namespace
