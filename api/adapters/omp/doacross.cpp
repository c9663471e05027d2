// Doacross loops (OpenMP 5.2 section 15.9.7, `ordered(n)` with
// `ordered depend(sink: ...)` / `depend(source)`, the doacross clause).
// GCC hands the runtime the loop in logical iteration numbers: `counts`
// holds each ordered dimension's trip count (collapsed dimensions arrive
// as one), the loop itself is dealt over the first dimension (0 ..
// counts[0]-1) by the ordinary schedules, and posts and waits name an
// iteration vector in those numbers (see `gcc -fopenmp -fdump-tree-ompexp`).
//
// One thread runs all inner iterations of a first-dimension iteration, in
// order, so each first-dimension iteration keeps one word: 1 + the last
// inner iteration posted, flattened row-major (0: none yet). A wait is
// satisfied once that word reaches the vector's. Waiting never deadlocks:
// a sink names a lexicographically earlier iteration, each member runs its
// iterations in order, and every member has a worker of its own (team
// sizes never exceed the workers that can run), so the earliest iteration
// not yet posted is always running. Waiters block in team_wait (spin, run
// tasks, sleep until a post wakes them), so posters that share a CPU with
// them get it.
#include <cstdarg>
#include <cstdlib>
#include <new>
#include <type_traits>

#include "team.hpp"

namespace joule::omp {
namespace {

struct Doacross {
  unsigned dims = 1;
  std::atomic<int> waiters{0};  // members in a wait: posts wake the team only then
  std::uint64_t* counts = nullptr;
  std::atomic<std::uint64_t>* posted = nullptr;  // one per first-dimension iteration
};

template <class T>
std::uint64_t as_count(T v) {
  if constexpr (std::is_signed_v<T>) return v < 0 ? 0 : std::uint64_t(v);
  return std::uint64_t(v);
}

template <class T>
Doacross* make_doacross(unsigned dims, const T* counts) {
  std::uint64_t inner = 1;
  for (unsigned d = 1; d < dims; ++d)
    if (__builtin_mul_overflow(inner, as_count(counts[d]), &inner) || inner >= (1ull << 63))
      unsupported("a doacross loop whose inner ordered dimensions exceed 2^63 iterations");
  const std::uint64_t first = as_count(counts[0]);
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(first + dims, sizeof(std::uint64_t), &bytes) ||
      __builtin_add_overflow(bytes, sizeof(Doacross), &bytes))
    unsupported("a doacross loop of more iterations than memory can track");
  void* block = std::calloc(1, bytes);
  if (!block) unsupported("a doacross loop of more iterations than memory can track");
  auto* d = new (block) Doacross;
  d->dims = dims;
  d->counts = reinterpret_cast<std::uint64_t*>(d + 1);
  for (unsigned k = 0; k < dims; ++k) d->counts[k] = as_count(counts[k]);
  d->posted = reinterpret_cast<std::atomic<std::uint64_t>*>(d->counts + dims);
  return d;
}

// The first member to arrive makes the state; the others use it. Every
// member passes here before it posts or waits.
template <class T>
void setup_doacross(unsigned dims, const T* counts) {
  WorkShare* w = self().ws;
  if (w->doacross.load(std::memory_order_acquire)) return;
  static std::atomic<bool> lock{false};
  while (lock.exchange(true, std::memory_order_acquire)) __builtin_ia32_pause();
  if (!w->doacross.load(std::memory_order_relaxed))
    w->doacross.store(make_doacross(dims, counts), std::memory_order_release);
  lock.store(false, std::memory_order_release);
}

// Null outside a doacross loop and in a team of one (whose iterations run
// in order: every wait is already satisfied).
Doacross* current() {
  const WorkShare* w = self().ws;
  return w ? static_cast<Doacross*>(w->doacross.load(std::memory_order_acquire)) : nullptr;
}

template <class T>
bool doacross_start(int sched, unsigned dims, const T* counts, T chunk, T* istart, T* iend,
                    std::uintptr_t* reductions = nullptr, void** mem = nullptr) {
  std::uint64_t lo = 0, hi = 0;
  const bool got = loop_begin(sched, 0, 1, dims ? as_count(counts[0]) : 0, std::uint64_t(chunk),
                              &lo, &hi, reductions);
  if (dims > 0 && current_team()->n > 1) setup_doacross(dims, counts);
  if (mem) share_mem(mem);
  if (istart) *istart = T(lo);
  if (iend) *iend = T(hi);
  return got;
}

void post_flat(Doacross* d, std::uint64_t first, std::uint64_t inner) {
  d->posted[first].store(inner + 1, std::memory_order_seq_cst);
  if (d->waiters.load(std::memory_order_seq_cst) > 0) wake_team(current_team());
}

void wait_flat(Doacross* d, std::uint64_t first, std::uint64_t inner) {
  std::atomic<std::uint64_t>& word = d->posted[first];
  if (word.load(std::memory_order_acquire) > inner) return;
  d->waiters.fetch_add(1, std::memory_order_seq_cst);
  team_wait(current_team(), [&] { return word.load(std::memory_order_acquire) > inner; });
  d->waiters.fetch_sub(1, std::memory_order_relaxed);
}

template <class T>
void doacross_post(const T* iter) {
  Doacross* d = current();
  if (!d) return;
  std::uint64_t inner = 0;
  for (unsigned k = 1; k < d->dims; ++k) inner = inner * d->counts[k] + std::uint64_t(iter[k]);
  post_flat(d, std::uint64_t(iter[0]), inner);
}

// A component outside its dimension's iterations: the sink names no
// iteration and is ignored (OpenMP 5.2 section 15.9.7).
template <class T>
bool in_range(const Doacross* d, unsigned k, T v) {
  if constexpr (std::is_signed_v<T>)
    if (v < 0) return false;
  return std::uint64_t(v) < d->counts[k];
}

template <class T>
void doacross_wait(T first, va_list rest) {
  Doacross* d = current();
  if (!d || !in_range(d, 0, first)) return;
  std::uint64_t inner = 0;
  for (unsigned k = 1; k < d->dims; ++k) {
    const T v = va_arg(rest, T);
    if (!in_range(d, k, v)) return;
    inner = inner * d->counts[k] + std::uint64_t(v);
  }
  wait_flat(d, std::uint64_t(first), inner);
}

std::uint64_t flatten(const Doacross* d, const std::uint64_t* iter) {
  std::uint64_t inner = 0;
  for (unsigned k = 1; k < d->dims; ++k) inner = inner * d->counts[k] + iter[k];
  return inner;
}

}  // namespace

void* doacross_create(unsigned dims, const std::uint64_t* counts) {
  return make_doacross(dims, counts);
}
void doacross_post_at(void* d, const std::uint64_t* iter) {
  auto* da = static_cast<Doacross*>(d);
  post_flat(da, iter[0], flatten(da, iter));
}
void doacross_wait_at(void* d, const std::uint64_t* iter) {
  auto* da = static_cast<Doacross*>(d);
  wait_flat(da, iter[0], flatten(da, iter));
}

}  // namespace joule::omp

using namespace joule::omp;
using ull = unsigned long long;

extern "C" {

#define JOULE_DOACROSS_KIND(name, kind)                                                       \
  JOULE_EXPORT bool GOMP_loop_doacross_##name##_start(unsigned n, long* counts, long chunk,   \
                                                      long* istart, long* iend) {             \
    return doacross_start(kind, n, counts, chunk, istart, iend);                              \
  }                                                                                           \
  JOULE_EXPORT bool GOMP_loop_ull_doacross_##name##_start(unsigned n, ull* counts, ull chunk, \
                                                          ull* istart, ull* iend) {           \
    return doacross_start(kind, n, counts, chunk, istart, iend);                              \
  }

JOULE_DOACROSS_KIND(static, kStatic)
JOULE_DOACROSS_KIND(dynamic, kDynamic)
JOULE_DOACROSS_KIND(guided, kGuided)

JOULE_EXPORT bool GOMP_loop_doacross_runtime_start(unsigned n, long* counts, long* istart,
                                                   long* iend) {
  return doacross_start(kRuntime, n, counts, 0L, istart, iend);
}

JOULE_EXPORT bool GOMP_loop_ull_doacross_runtime_start(unsigned n, ull* counts, ull* istart,
                                                       ull* iend) {
  return doacross_start(kRuntime, n, counts, 0ULL, istart, iend);
}

// GCC 9+: any schedule, with task reductions and team scratch.
JOULE_EXPORT bool GOMP_loop_doacross_start(unsigned n, long* counts, long sched, long chunk,
                                           long* istart, long* iend, std::uintptr_t* reductions,
                                           void** mem) {
  return doacross_start(int(sched), n, counts, chunk, istart, iend, reductions, mem);
}

JOULE_EXPORT bool GOMP_loop_ull_doacross_start(unsigned n, ull* counts, long sched, ull chunk,
                                               ull* istart, ull* iend, std::uintptr_t* reductions,
                                               void** mem) {
  return doacross_start(int(sched), n, counts, chunk, istart, iend, reductions, mem);
}

JOULE_EXPORT void GOMP_doacross_post(long* iter) { doacross_post(iter); }
JOULE_EXPORT void GOMP_doacross_ull_post(ull* iter) { doacross_post(iter); }

JOULE_EXPORT void GOMP_doacross_wait(long first, ...) {
  va_list rest;
  va_start(rest, first);
  doacross_wait(first, rest);
  va_end(rest);
}

JOULE_EXPORT void GOMP_doacross_ull_wait(ull first, ...) {
  va_list rest;
  va_start(rest, first);
  doacross_wait(first, rest);
  va_end(rest);
}

}  // extern "C"
