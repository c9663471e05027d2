// Who owns a record left on disk: a pid and that process's start time, so
// that a pid the kernel has since given to another process does not pass
// for the owner (proc(5), /proc/<pid>/stat field 22, "starttime").
// Libc only: joule-ctl and jouled use it without a runtime.
#pragma once

namespace joule::core {

// Start time of a process in clock ticks since boot; 0 if it does not exist
// or cannot be read.
unsigned long long process_start_time(int pid);
// The pid exists, its start time is readable and, when start_time is not
// 0, the same: a process that cannot be told apart counts as gone only when
// its pid is.
bool process_alive(int pid, unsigned long long start_time);

}  // namespace joule::core
