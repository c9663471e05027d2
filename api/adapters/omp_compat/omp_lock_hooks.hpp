// What omp_locks.cpp asks of the layer it is linked into. OpenMP 5.2 §18.9:
// locks are owned by tasks, not threads. joule_omp_compat keeps the weak
// defaults (the owner is the thread: an OmpSs task runs on one worker);
// libjoule-omp defines them (lock_owner.cpp), since there one thread may run
// several tasks, one suspended under another.
#pragma once

namespace joule::omp_locks {

// The task that would own a lock set now.
const void* owner();
// The calling task took / let go of a lock.
void taken(const void* lock);
void given(const void* lock);
// Before a set waits for `lock` (`entry` names the routine): stops the
// program with a message when the wait can never end.
void before_wait(const void* lock, const char* entry);

}  // namespace joule::omp_locks
