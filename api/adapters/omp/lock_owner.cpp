// Locks owned by tasks (OpenMP 5.2 §18.9), for omp_locks.cpp: the owner of
// a nested lock is the current task (task_tag, else the thread's implicit
// task), so a second task on the same thread does not re-enter it.
//
// joule runs other tasks on a thread while a task there waits (taskwait,
// taskgroup, an undeferred task's dependences, a barrier): they run on top
// of the suspended one. If it holds a lock the new one asks for, neither can
// ever go on. libgomp's tied tasks avoid that by running only descendants
// of the waiting task, and so does joule while a task on the thread holds a
// lock (joule_restrict_waits_by). A wait for a lock that a task
// suspended below on this thread holds, which would never end, stops the
// program with a message instead of hanging.
#include <cstdio>
#include <cstdlib>

#include "../omp_compat/omp_lock_hooks.hpp"
#include "joule/team.h"
#include "ompt.hpp"
#include "team.hpp"

namespace joule::omp_locks {
namespace {

// The locks tasks on this thread hold now (a few at most), with their
// owners; joule reads `count` in this thread's waits. Initial-exec, as
// t_state: a lock operation makes no __tls_get_addr call.
struct Held {
  const void* lock = nullptr;
  const void* owner = nullptr;
};
constexpr int kMaxHeld = 16;  // past that many, no more are tracked (still restricted)
struct HeldLocks {
  Held held[kMaxHeld] = {};
  int count = 0;
  bool registered = false;
};
[[gnu::tls_model("initial-exec")]] constinit thread_local HeldLocks t_locks;

// Once per thread. A lock may be the program's first OpenMP call: joule
// starts with the OMP_* settings.
[[gnu::noinline]] void register_thread() {
  omp::ensure_init();
  joule_restrict_waits_by(&t_locks.count);
  t_locks.registered = true;
}

}  // namespace

const void* owner() {
  const omp::ThreadState& s = omp::self();
  return s.task_tag ? s.task_tag : &s;
}

void taken(const void* lock) {
  HeldLocks& l = t_locks;
  if (!l.registered) [[unlikely]]
    register_thread();
  if (l.count < kMaxHeld) l.held[l.count++] = Held{lock, owner()};
  if (omp::ompt::on()) omp::ompt::mutex_acquired(omp::ompt::kMutexLock, lock);
}

// A lock set on another thread (unset here: unspecified in OpenMP, but
// libgomp allows it) is not in this thread's list; the setter's thread
// keeps its waits restricted (docs/openmp.md).
void given(const void* lock) {
  if (omp::ompt::on()) omp::ompt::mutex_released(omp::ompt::kMutexLock, lock);
  HeldLocks& l = t_locks;
  for (int i = l.count - 1; i >= 0; --i) {
    if (l.held[i].lock != lock) continue;
    l.held[i] = l.held[--l.count];
    return;
  }
}

void before_wait(const void* lock, const char* entry) {
  const void* me = owner();
  const HeldLocks& l = t_locks;
  for (int i = 0; i < l.count; ++i)
    if (l.held[i].lock == lock && l.held[i].owner != me) {
      std::fprintf(stderr,
                   "libjoule-omp: %s: the lock is held by a task suspended on this thread "
                   "(joule ran another task there while it waited); waiting would never end "
                   "(see docs/openmp.md, \"Task semantics, locks and allocators\")\n",
                   entry);
      std::exit(1);
    }
}

}  // namespace joule::omp_locks
