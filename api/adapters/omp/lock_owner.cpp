// Locks owned by tasks (OpenMP 5.2 §18.9), for omp_locks.cpp: the owner of
// a nested lock is the current task (task_tag, else the thread's implicit
// task), so a second task on the same thread does not re-enter it.
//
// joule runs other tasks on a thread while a task there waits (taskwait,
// taskgroup, an undeferred task's dependences, a barrier): they run on top
// of the suspended one. If it holds a lock the new one asks for, neither can
// ever go on. libgomp's tied tasks avoid that by running only descendants
// of the waiting task, and so does joule while a task on the thread holds a
// lock (joule_wait_descendants_only). A wait for a lock that a task
// suspended below on this thread holds, which would never end, stops the
// program with a message instead of hanging.
#include <cstdio>
#include <cstdlib>

#include "../omp_compat/omp_lock_hooks.hpp"
#include "joule/team.h"
#include "team.hpp"

namespace joule::omp_locks {
namespace {

// The locks tasks on this thread hold now (a few at most), with their owners.
struct Held {
  const void* lock;
  const void* owner;
};
constexpr int kMaxHeld = 64;
thread_local Held t_held[kMaxHeld];
thread_local int t_count = 0;

}  // namespace

const void* owner() {
  const omp::ThreadState& s = omp::self();
  return s.task_tag ? s.task_tag : &s;
}

void taken(const void* lock) {
  if (t_count == kMaxHeld) return;  // past that many, waits stay unrestricted
  omp::ensure_init();               // a lock may be the program's first OpenMP call
  t_held[t_count++] = Held{lock, owner()};
  joule_wait_descendants_only(+1);
}

// A lock set on another thread (unset here: unspecified in OpenMP, but
// libgomp allows it) is not in this thread's list; the setter's thread
// keeps its waits restricted (docs/openmp.md).
void given(const void* lock) {
  for (int i = t_count - 1; i >= 0; --i) {
    if (t_held[i].lock != lock) continue;
    t_held[i] = t_held[--t_count];
    joule_wait_descendants_only(-1);
    return;
  }
}

void before_wait(const void* lock, const char* entry) {
  const void* me = owner();
  for (int i = 0; i < t_count; ++i)
    if (t_held[i].lock == lock && t_held[i].owner != me) {
      std::fprintf(stderr,
                   "libjoule-omp: %s: the lock is held by a task suspended on this thread "
                   "(joule ran another task there while it waited); waiting would never end "
                   "(see docs/openmp.md, \"Task semantics, locks and allocators\")\n",
                   entry);
      std::exit(1);
    }
}

}  // namespace joule::omp_locks
