// OpenMP simple and nested locks (<omp.h>) on a futex word: uncontended
// set/unset are one atomic each; a waiter spins briefly, then sleeps.
// Nested locks belong to the task that set them (omp_lock_hooks.hpp: by
// default the thread, a joule worker; joule tasks do not migrate).
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "joule/omp/omp.h"
#include "omp_lock_hooks.hpp"

namespace joule::omp_locks {

[[gnu::weak]] const void* owner() {
  static thread_local char tag;
  return &tag;
}
[[gnu::weak]] void taken(const void*) {}
[[gnu::weak]] void given(const void*) {}
[[gnu::weak]] void before_wait(const void*, const char*) {}

}  // namespace joule::omp_locks

namespace {

namespace hooks = joule::omp_locks;

// 0 free, 1 held, 2 held with (possible) sleepers.
bool try_word(int* w) {
  int expected = 0;
  return __atomic_compare_exchange_n(w, &expected, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void futex(int* w, int op, int val) { syscall(SYS_futex, w, op, val, nullptr, nullptr, 0); }

void lock_word(int* w, const void* lock, const char* entry) {
  for (int spin = 0; spin < 128; ++spin) {
    if (try_word(w)) return;
    __builtin_ia32_pause();
  }
  hooks::before_wait(lock, entry);
  while (__atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE) != 0) futex(w, FUTEX_WAIT_PRIVATE, 2);
}

void unlock_word(int* w) {
  if (__atomic_exchange_n(w, 0, __ATOMIC_RELEASE) == 2) futex(w, FUTEX_WAKE_PRIVATE, 1);
}

// A nested lock's state lives out of line: libomp's omp.h (clang's) makes
// omp_nest_lock_t 8 bytes, libgomp's 16, and one library serves both; the
// first 8 bytes hold a pointer to it (set by omp_init_nest_lock).
struct NestLock {
  int word[1] = {0};
  int count = 0;
  const void* owner = nullptr;
};

NestLock* nest(omp_nest_lock_t* l) {
  auto** slot = reinterpret_cast<NestLock**>(l);
  NestLock* n = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (n) return n;
  auto* fresh = new NestLock;  // a zeroed lock never initialised (as libgomp accepts)
  if (__atomic_compare_exchange_n(slot, &n, fresh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return fresh;
  delete fresh;
  return n;
}

bool owned(const NestLock* n) {
  return __atomic_load_n(&n->owner, __ATOMIC_RELAXED) == hooks::owner();
}

void take(NestLock* n, omp_nest_lock_t* l) {
  __atomic_store_n(&n->owner, hooks::owner(), __ATOMIC_RELAXED);
  n->count = 1;
  hooks::taken(l);
}

}  // namespace

extern "C" {

JOULE_EXPORT void omp_init_lock(omp_lock_t* l) { l->_word[0] = 0; }
JOULE_EXPORT void omp_destroy_lock(omp_lock_t* l) { l->_word[0] = 0; }
JOULE_EXPORT void omp_set_lock(omp_lock_t* l) {
  lock_word(l->_word, l, "omp_set_lock");
  hooks::taken(l);
}
JOULE_EXPORT void omp_unset_lock(omp_lock_t* l) {
  hooks::given(l);
  unlock_word(l->_word);
}
JOULE_EXPORT int omp_test_lock(omp_lock_t* l) {
  if (!try_word(l->_word)) return 0;
  hooks::taken(l);
  return 1;
}

JOULE_EXPORT void omp_init_nest_lock(omp_nest_lock_t* l) {
  __atomic_store_n(reinterpret_cast<NestLock**>(l), new NestLock, __ATOMIC_RELEASE);
}

JOULE_EXPORT void omp_destroy_nest_lock(omp_nest_lock_t* l) {
  delete __atomic_exchange_n(reinterpret_cast<NestLock**>(l), nullptr, __ATOMIC_ACQ_REL);
}

JOULE_EXPORT void omp_set_nest_lock(omp_nest_lock_t* l) {
  NestLock* n = nest(l);
  if (owned(n)) {
    ++n->count;
    return;
  }
  lock_word(n->word, l, "omp_set_nest_lock");
  take(n, l);
}

JOULE_EXPORT void omp_unset_nest_lock(omp_nest_lock_t* l) {
  NestLock* n = nest(l);
  if (--n->count > 0) return;
  hooks::given(l);
  __atomic_store_n(&n->owner, nullptr, __ATOMIC_RELAXED);
  unlock_word(n->word);
}

JOULE_EXPORT int omp_test_nest_lock(omp_nest_lock_t* l) {
  NestLock* n = nest(l);
  if (owned(n)) return ++n->count;
  if (!try_word(n->word)) return 0;
  take(n, l);
  return 1;
}

}  // extern "C"
