// The LLVM ABI's task blocks (kmpc_task.cpp): a prefix of joule's, then the
// kmp_task_t the compiled code sees, its privates and its shareds.
#pragma once

#include <vector>

#include "kmpc.hpp"
#include "task.hpp"

namespace joule::omp::kmp {

enum class Mode : std::uint8_t { kInline, kDeferred };

// 32 bytes: with task.cpp's header, a kmp_task_t and a few shareds, a
// deferred task's block still fits joule's pooled task blocks.
struct alignas(16) Prefix {
  std::uint64_t cache_next;                // unused (keeps the prefix at 32 bytes)
  std::uint64_t event;                     // a detachable task's event, or 0
  std::uint32_t task_bytes, shareds_size;  // as allocated (taskloop copies them)
  std::int32_t flags;                      // the allocation's kmp_tasking_flags
  Mode mode;
  bool running;   // its routine runs now
  bool again;     // an untied task asked for its next part (see run_body)
  bool body_ran;  // an if(0) detachable task's joule task only waits for the event
};
static_assert(sizeof(Prefix) == 32);

inline Task* task_of(Prefix* p) { return reinterpret_cast<Task*>(p + 1); }
inline Prefix* prefix_of(void* task) { return static_cast<Prefix*>(task) - 1; }
// now: the task will run at once on this thread (a block of the thread's).
Prefix* task_alloc(std::int32_t flags, std::size_t task_size, std::size_t shareds_size,
                   Routine entry, bool now = false);
// Runs it now, or submits it: as task_alloc decided.
void task_start(Prefix* p);
void task_set_event(Prefix* p, std::uint64_t ev);
// Runs it on this thread now and frees it.
void run_now(Prefix* p);
// The end of a task run now (its event, its block); if0_deps: an if(0)
// detachable task's dependencies, held until the fulfil (taken over).
void task_done_now(Prefix* p, std::vector<joule_dep_t>* if0_deps = nullptr);
void task_submit(Prefix* p, const joule_dep_t* deps, std::size_t n);

}  // namespace joule::omp::kmp
