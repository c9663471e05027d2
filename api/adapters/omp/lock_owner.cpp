// Locks owned by tasks (OpenMP 5.2 §18.9), for omp_locks.cpp: the owner of
// a nested lock is the current task (task_tag, else the thread's implicit
// task), so a second task on the same thread does not re-enter it.
//
// joule runs other tasks on a thread while a task there waits (taskwait,
// taskgroup, an undeferred task's dependences): such a task runs on top of
// the suspended one. If the suspended task holds a lock the new one asks
// for, neither can ever go on; libgomp's tied tasks avoid that by running
// only descendants at a taskwait. Two measures: a task that holds a lock
// runs the tasks it creates without dependences at once (task.cpp: nothing
// of its own is left for its taskwait to wait for), and a wait for a lock
// that a task suspended below on this thread holds stops the program with
// a message instead of hanging.
#include <cstdio>
#include <cstdlib>

#include "../omp_compat/omp_lock_hooks.hpp"
#include "team.hpp"

namespace joule::omp_locks {
namespace {

// The locks tasks on this thread hold now (a few at most), with their owners.
struct Held {
  const void* lock;
  const void* owner;
};
constexpr int kMaxHeld = 32;
thread_local Held t_held[kMaxHeld];
thread_local int t_count = 0;

}  // namespace

const void* owner() {
  const omp::ThreadState& s = omp::self();
  return s.task_tag ? s.task_tag : &s;
}

void taken(const void* lock) {
  ++omp::self().locks_held;
  if (t_count < kMaxHeld) t_held[t_count++] = Held{lock, owner()};
}

// A lock set on another thread (unset here: unspecified in OpenMP, but
// libgomp allows it) is not in this thread's list.
void given(const void* lock) {
  for (int i = t_count - 1; i >= 0; --i) {
    if (t_held[i].lock != lock) continue;
    if (t_held[i].owner == owner() && omp::self().locks_held > 0) --omp::self().locks_held;
    t_held[i] = t_held[--t_count];
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
