// Explicit tasks as joule tasks: GCC's argument block is copied into the
// joule task's own block, behind a small header naming the body and the
// team the task binds to.
#pragma once

#include <cstdint>

#include "joule/joule.h"

namespace joule::omp {

struct GompTask {
  void (*fn)(void*);
  void* data;
  void (*cpyfn)(void*, void*);
  long arg_size;
  long arg_align;
};

// Creates the task with its argument block filled (cpyfn or a copy); the
// caller adds dependencies and submits. bounds: taskloop's first two
// fields of the block (its iteration range), or null.
joule_task_t* create_task(const GompTask& g, const joule_task_options_t& opts,
                          const std::uint64_t* bounds);
// GCC's depend array: the old layout {n, n_out, addr...} or the newer one
// {0, n, n_out, n_mutex, n_in, addr..., depobj...}.
void add_depend(joule_task_t* t, void** depend);
// The same array as joule dependencies (for GOMP_taskwait_depend); n entries.
int depend_count(void** depend);
void depend_to_joule(void** depend, joule_dep_t* out);

}  // namespace joule::omp
