// Task reductions of the LLVM runtime ABI (kmpc_taskred.cpp): the
// taskgroups a thread is in, innermost last, and their reductions.
#pragma once

namespace joule::omp::kmp {

void taskgroup_begin();
// After the group's tasks ended: folds and frees its reduction, if any.
void taskgroup_end();

}  // namespace joule::omp::kmp
