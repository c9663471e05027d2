// The LLVM OpenMP runtime ABI (the __kmpc_* entry points clang, Intel's
// icx/ifx, AMD's and Cray's compilers call) as thin translations onto the
// same team, worksharing and task code the GOMP_* entry points use
// (docs/openmp.md, "Programs built by clang"). These are the interface's
// types, laid out as the compilers lay them out: see the LLVM OpenMP
// runtime's interface documentation (openmp/runtime/src/kmp.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "team.hpp"

namespace joule::omp::kmp {

// The source location every call passes (ident_t); unused here but for names.
struct Ident {
  std::int32_t reserved_1, flags, reserved_2, reserved_3;
  const char* psource;
};

using Micro = void (*)(std::int32_t* gtid, std::int32_t* btid, ...);
using Routine = std::int32_t (*)(std::int32_t gtid, void* task);

// kmp_task_t: the compiled code's privates follow it in the same block.
struct Task {
  void* shareds;
  Routine routine;
  std::int32_t part_id;
  Routine data1;        // the destructors thunk (task flag kDestructors)
  std::intptr_t data2;  // the priority (task flag kPriority)
};

// kmp_depend_info_t: flags in=1, out=2, mutexinoutset=4, inoutset=8.
struct DependInfo {
  std::intptr_t base_addr;
  std::size_t len;
  std::uint8_t flags;
};

// struct kmp_dim, bounds inclusive.
struct Dim {
  std::int64_t lo, up, st;
};

// kmp_taskred_input_t (__kmpc_taskred_init and the modifier form).
struct TaskRedInput {
  void* shar;
  void* orig;
  std::size_t size;
  void* init;  // void(*)(void* priv, void* orig), or null: zeroed
  void* fini;  // void(*)(void* priv), or null
  void* comb;  // void(*)(void* shar, void* priv)
  std::uint32_t flags;
};

// The number the compiled code passes back (gtid): the thread number, as
// cheap as it gets; unused, since the calling thread's state says more.
inline std::int32_t gtid() { return self().id; }

// The critical-name or reduction lock word (kmp_critical_name, 32 bytes, zeroed).
void critical_enter(void* name);
void critical_leave(void* name);

// Runs fn on the calling thread as a member of a team of `n` (or the
// pushed/ICV size) with the microtask's argument vector.
void fork(Micro fn, int argc, void** args);

// The trip count of the loop this thread entered last (kmpc_loop.cpp): a
// doacross loop's collapsed dimensions are those it covers (kmpc_doacross.cpp).
void note_loop_count(std::uint64_t count);

}  // namespace joule::omp::kmp
