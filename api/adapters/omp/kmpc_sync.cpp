// Barriers, single, master/masked, critical, flush, copyprivate and the
// reductions of the LLVM runtime ABI, on the team code of sync.cpp and the
// lock words of omp_locks.cpp.
#include <atomic>

#include "joule/omp/omp.h"
#include "kmpc.hpp"
#include "ompt.hpp"

extern "C" {
bool GOMP_single_start(void);
}

namespace joule::omp::kmp {

// kmp_critical_name is 32 zeroed bytes per name: the first 4 are the lock word.
void critical_enter(void* name) {
  if (ompt::on()) ompt::next_mutex_kind(ompt::kMutexCritical);
  omp_set_lock(static_cast<omp_lock_t*>(name));
}
void critical_leave(void* name) {
  if (ompt::on()) ompt::next_mutex_kind(ompt::kMutexCritical);
  omp_unset_lock(static_cast<omp_lock_t*>(name));
}

namespace {

// ident_t's flag for a barrier the program wrote (libomp's kmp.h numbering).
constexpr std::int32_t kIdentBarrierExplicit = 0x20;

// A masked region's OMPT events: begin when the thread enters, end at its end.
std::int32_t masked_if(bool runs) {
  if (runs && ompt::on()) ompt::masked(ompt::kBegin);
  return runs;
}

void masked_end() {
  if (ompt::on()) ompt::masked(ompt::kEnd);
}

// The reduction methods __kmpc_reduce* may choose (the return value): 1,
// the thread folds its values into the originals itself inside the
// critical section named by the lock, then calls __kmpc_end_reduce*; 2,
// each value is folded with atomic operations the compiler emitted, with
// no lock (clang then calls __kmpc_end_reduce for the blocking form only,
// for its barrier). The compiler says it emitted the atomic form with the
// KMP_IDENT_ATOMIC_REDUCE flag of the call's ident_t (the LLVM runtime's
// kmp.h); clang 14 sets it unless a reduction has no atomic form (a
// user-defined one), and emits native atomics or libatomic calls, never the
// runtime's __kmpc_atomic_*. A team of one folds with no lock (method 1),
// unless it is one team of a league (teams.cpp): a teams construct's
// reduction folds every team's value into the same originals, and the
// league's teams run at once on different workers.
constexpr std::int32_t kCriticalReduce = 1, kAtomicReduce = 2;
constexpr std::int32_t kIdentAtomicReduce = 0x10;

bool atomic_reduce(const Ident* loc) { return loc && (loc->flags & kIdentAtomicReduce); }

bool folds_alone(const Team* t) { return t->n == 1 && !(t->level == 0 && t->num_teams > 1); }

std::int32_t reduce_begin(const Ident* loc, void* lock) {
  if (folds_alone(current_team())) return kCriticalReduce;
  if (atomic_reduce(loc)) return kAtomicReduce;
  critical_enter(lock);
  return kCriticalReduce;
}

// The same ident and team as reduce_begin's: the same decision.
void reduce_end(const Ident* loc, void* lock) {
  if (!folds_alone(current_team()) && !atomic_reduce(loc)) critical_leave(lock);
}

}  // namespace
}  // namespace joule::omp::kmp

using namespace joule::omp;
using namespace joule::omp::kmp;

extern "C" {

JOULE_EXPORT void __kmpc_barrier(Ident* loc, std::int32_t) {
  if (loc && (loc->flags & kIdentBarrierExplicit))
    barrier_explicit();
  else
    barrier();
}
JOULE_EXPORT void __kmpc_flush(Ident*) { std::atomic_thread_fence(std::memory_order_seq_cst); }

// Only the executor calls __kmpc_end_single: the others' region is empty.
JOULE_EXPORT std::int32_t __kmpc_single(Ident*, std::int32_t) {
  const bool first = GOMP_single_start();
  if (ompt::on()) {
    ompt::work(first ? ompt::kSingleExecutor : ompt::kSingleOther, ompt::kBegin, 1);
    if (!first) ompt::work(ompt::kSingleOther, ompt::kEnd, 1);
  }
  return first;
}
JOULE_EXPORT void __kmpc_end_single(Ident*, std::int32_t) {
  if (ompt::on()) ompt::work(ompt::kSingleExecutor, ompt::kEnd, 1);
}

JOULE_EXPORT std::int32_t __kmpc_master(Ident*, std::int32_t) { return masked_if(self().id == 0); }
JOULE_EXPORT void __kmpc_end_master(Ident*, std::int32_t) { masked_end(); }
JOULE_EXPORT std::int32_t __kmpc_masked(Ident*, std::int32_t, std::int32_t filter) {
  return masked_if(self().id == filter);
}
JOULE_EXPORT void __kmpc_end_masked(Ident*, std::int32_t) { masked_end(); }

JOULE_EXPORT void __kmpc_critical(Ident*, std::int32_t, void* name) { critical_enter(name); }
// Hints are advice (OpenMP 5.2 §15.1): every critical section is the same lock.
JOULE_EXPORT void __kmpc_critical_with_hint(Ident*, std::int32_t, void* name, std::uint32_t) {
  critical_enter(name);
}
JOULE_EXPORT void __kmpc_end_critical(Ident*, std::int32_t, void* name) { critical_leave(name); }

// single copyprivate: every member calls this after the single block; the
// one that ran it (didit) publishes its data, the others copy from it, and
// the closing barrier keeps the winner's data alive until they have.
JOULE_EXPORT void __kmpc_copyprivate(Ident*, std::int32_t, std::size_t, void* data,
                                     void (*copy)(void* dst, void* src), std::int32_t didit) {
  Team* t = current_team();
  if (t->n == 1) return;
  WorkShare* w = ws_enter([](WorkShare&) {});
  if (didit) {
    ompt::handover_publish();
    w->copy.store(data, std::memory_order_relaxed);
    w->copied.store(true, std::memory_order_seq_cst);
    wake_team(t);
  } else {
    if (ompt::on()) ompt::sync_begin(ompt::kBarrierImplementation);
    team_wait(t, [&] { return w->copied.load(std::memory_order_acquire); });
    if (ompt::on()) ompt::sync_end(ompt::kBarrierImplementation);
    copy(data, w->copy.load(std::memory_order_relaxed));
  }
  ws_leave();
  barrier();
}

JOULE_EXPORT std::int32_t __kmpc_reduce_nowait(Ident* loc, std::int32_t, std::int32_t, std::size_t,
                                               void*, void (*)(void*, void*), void* lock) {
  return reduce_begin(loc, lock);
}
JOULE_EXPORT void __kmpc_end_reduce_nowait(Ident* loc, std::int32_t, void* lock) {
  reduce_end(loc, lock);
}
JOULE_EXPORT std::int32_t __kmpc_reduce(Ident* loc, std::int32_t, std::int32_t, std::size_t, void*,
                                        void (*)(void*, void*), void* lock) {
  return reduce_begin(loc, lock);
}
// The blocking form ends with the construct's barrier.
JOULE_EXPORT void __kmpc_end_reduce(Ident* loc, std::int32_t, void* lock) {
  reduce_end(loc, lock);
  barrier();
}

// Locks through the runtime (what Intel's compilers may emit): the user's
// lock variable is the omp_lock_t or omp_nest_lock_t; hints are advice.
#define JOULE_KMPC_LOCKS(kind, type)                                               \
  JOULE_EXPORT void __kmpc_init_##kind(Ident*, std::int32_t, void** l) {           \
    omp_init_##kind(reinterpret_cast<type*>(l));                                   \
  }                                                                                \
  JOULE_EXPORT void __kmpc_init_##kind##_with_hint(Ident*, std::int32_t, void** l, \
                                                   std::uint32_t) {                \
    omp_init_##kind(reinterpret_cast<type*>(l));                                   \
  }                                                                                \
  JOULE_EXPORT void __kmpc_destroy_##kind(Ident*, std::int32_t, void** l) {        \
    omp_destroy_##kind(reinterpret_cast<type*>(l));                                \
  }                                                                                \
  JOULE_EXPORT void __kmpc_set_##kind(Ident*, std::int32_t, void** l) {            \
    omp_set_##kind(reinterpret_cast<type*>(l));                                    \
  }                                                                                \
  JOULE_EXPORT void __kmpc_unset_##kind(Ident*, std::int32_t, void** l) {          \
    omp_unset_##kind(reinterpret_cast<type*>(l));                                  \
  }                                                                                \
  JOULE_EXPORT int __kmpc_test_##kind(Ident*, std::int32_t, void** l) {            \
    return omp_test_##kind(reinterpret_cast<type*>(l));                            \
  }

JOULE_KMPC_LOCKS(lock, omp_lock_t)
JOULE_KMPC_LOCKS(nest_lock, omp_nest_lock_t)

// clang's omp.h renames the affinity-format routines (ompc_*).
JOULE_EXPORT void ompc_set_affinity_format(const char* f) { omp_set_affinity_format(f); }
JOULE_EXPORT std::size_t ompc_get_affinity_format(char* b, std::size_t n) {
  return omp_get_affinity_format(b, n);
}
JOULE_EXPORT void ompc_display_affinity(const char* f) { omp_display_affinity(f); }
JOULE_EXPORT std::size_t ompc_capture_affinity(char* b, std::size_t n, const char* f) {
  return omp_capture_affinity(b, n, f);
}

}  // extern "C"
