// The OMPT entry points a tool finds through the lookup function (OpenMP
// 5.2 §19.6): callback registration and the inquiry functions.
#include <sched.h>

#include <atomic>
#include <cstring>

#include "joule/omp/omp.h"
#include "ompt.hpp"
#include "team.hpp"

namespace joule::omp::ompt {

void* g_callbacks[kEventLimit] = {};

namespace {

// The events libjoule-omp reports (docs/openmp-llvm-abi.md, "Tools (OMPT)").
bool reported(int e) {
  switch (e) {
    case kThreadBegin:
    case kThreadEnd:
    case kParallelBegin:
    case kParallelEnd:
    case kTaskCreate:
    case kTaskSchedule:
    case kImplicitTask:
    case kSyncRegionWait:
    case kMutexReleased:
    case kDependences:
    case kWork:
    case kMasked:
    case kSyncRegion:
    case kMutexAcquire:
    case kMutexAcquired:
      return true;
    default:
      return false;
  }
}

int set_callback(int event, InterfaceFn cb) {
  if (event <= 0 || event >= kEventLimit) return kSetError;
  if (!reported(event)) return kSetNever;
  __atomic_store_n(&g_callbacks[event], reinterpret_cast<void*>(cb), __ATOMIC_RELEASE);
  return kSetAlways;
}

int get_callback(int event, InterfaceFn* cb) {
  if (event <= 0 || event >= kEventLimit || !cb) return 0;
  void* f = __atomic_load_n(&g_callbacks[event], __ATOMIC_ACQUIRE);
  if (!f) return 0;
  *cb = reinterpret_cast<InterfaceFn>(f);
  return 1;
}

// Level 0: the current task's region; each level up, the region that
// encountered the one below (a team records it at its start).
int get_parallel_info(int level, Data** parallel, int* team_size) {
  if (level < 0 || !g_on) return 0;
  const TaskRecord* r = current_task();
  const bool initial = (r->flags & kTaskInitial) != 0;
  const Team* t = initial ? nullptr : current_team();
  Data* data = r->parallel;
  int size = t ? t->n : 1;
  for (int i = 0; i < level; ++i) {
    if (!t) return 0;
    data = static_cast<Data*>(t->ompt_outer);
    t = t->parent && t->parent->level > 0 ? t->parent : nullptr;
    size = t ? t->n : 1;
  }
  if (parallel) *parallel = data;
  if (team_size) *team_size = size;
  return 2;
}

// Only the current task (level 0): the records of the tasks below it on
// the thread may be gone (docs/openmp-llvm-abi.md, "Tools (OMPT)").
int get_task_info(int level, int* flags, Data** task, Frame** frame, Data** parallel,
                  int* thread_num) {
  static thread_local Frame no_frame{};  // frames are not reported
  if (level != 0 || !g_on) return 0;
  TaskRecord* r = current_task();
  if (flags) *flags = r->flags;
  if (task) *task = &r->data;
  if (frame) *frame = &no_frame;
  if (parallel) *parallel = r->parallel;
  if (thread_num) *thread_num = r->thread_num;
  return 2;
}

std::uint64_t get_unique_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

struct Named {
  int value;
  const char* name;
};
constexpr Named kStates[] = {
    {kStateWorkSerial, "ompt_state_work_serial"},
    {kStateWorkParallel, "ompt_state_work_parallel"},
    {kStateWaitBarrier, "ompt_state_wait_barrier"},
    {kStateWaitTaskwait, "ompt_state_wait_taskwait"},
    {kStateWaitTaskgroup, "ompt_state_wait_taskgroup"},
    {kStateWaitMutex, "ompt_state_wait_mutex"},
    {kStateIdle, "ompt_state_idle"},
    {kStateUndefined, "ompt_state_undefined"},
};

// ompt_state_undefined (the first, by the specification) then the table.
int enumerate_states(int current, int* next, const char** name) {
  constexpr int n = int(sizeof kStates / sizeof kStates[0]);
  int i = 0;
  if (current != kStateUndefined) {
    while (i < n && kStates[i].value != current) ++i;
    ++i;
  }
  while (i < n && kStates[i].value == kStateUndefined) ++i;
  if (i >= n) return 0;
  *next = kStates[i].value;
  *name = kStates[i].name;
  return 1;
}

int enumerate_mutex_impls(int current, int* next, const char** name) {
  if (current != 0) return 0;  // ompt_mutex_impl_none: start
  *next = 1;
  *name = "futex";  // every lock, critical and atomic section: a futex word
  return 1;
}

int get_num_procs() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

int get_place_proc_ids(int place, int ids_size, int* ids) {
  const int n = omp_get_place_num_procs(place);
  if (n > 0 && ids_size >= n) omp_get_place_proc_ids(place, ids);
  return n;
}

int get_partition_place_nums(int size, int* places) {
  const int n = omp_get_partition_num_places();
  if (n > 0 && size >= n) omp_get_partition_place_nums(places);
  return n;
}

int get_proc_id() { return sched_getcpu(); }
int get_num_devices() { return 0; }
int get_task_memory(void**, std::size_t*, int) { return 0; }
void finalize_entry() { finalize_tool(); }

struct Entry {
  const char* name;
  InterfaceFn fn;
};
template <class F>
InterfaceFn fn(F f) {
  return reinterpret_cast<InterfaceFn>(f);
}
const Entry kEntries[] = {
    {"ompt_set_callback", fn(set_callback)},
    {"ompt_get_callback", fn(get_callback)},
    {"ompt_get_thread_data", fn(thread_data)},
    {"ompt_get_parallel_info", fn(get_parallel_info)},
    {"ompt_get_task_info", fn(get_task_info)},
    {"ompt_get_unique_id", fn(get_unique_id)},
    {"ompt_get_num_procs", fn(get_num_procs)},
    {"ompt_get_num_places", fn(omp_get_num_places)},
    {"ompt_get_place_proc_ids", fn(get_place_proc_ids)},
    {"ompt_get_place_num", fn(omp_get_place_num)},
    {"ompt_get_partition_place_nums", fn(get_partition_place_nums)},
    {"ompt_get_proc_id", fn(get_proc_id)},
    {"ompt_get_num_devices", fn(get_num_devices)},
    {"ompt_get_task_memory", fn(get_task_memory)},
    {"ompt_enumerate_states", fn(enumerate_states)},
    {"ompt_enumerate_mutex_impls", fn(enumerate_mutex_impls)},
    {"ompt_get_state", fn(get_state)},
    {"ompt_finalize_tool", fn(finalize_entry)},
};

}  // namespace

// Names not listed (device tracing, ompt_get_target_info...) answer null.
InterfaceFn lookup(const char* name) {
  if (!name) return nullptr;
  for (const Entry& e : kEntries)
    if (!std::strcmp(e.name, name)) return e.fn;
  return nullptr;
}

}  // namespace joule::omp::ompt
