// The OMPT interface's types and constants as OpenMP 5.1 §19 and 5.2 §19
// define them (the numbering of omp-tools.h, which tools are built with):
// only what libjoule-omp reports. Own declarations, so that building the
// runtime needs no compiler's omp-tools.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace joule::omp::ompt {

union Data {
  std::uint64_t value;
  void* ptr;
};

struct Frame {
  Data exit_frame;
  Data enter_frame;
  int exit_frame_flags;
  int enter_frame_flags;
};

struct Dependence {
  Data variable;
  int dependence_type;
};

using InterfaceFn = void (*)();
using Lookup = InterfaceFn (*)(const char* name);
using Initialize = int (*)(Lookup lookup, int initial_device_num, Data* tool_data);
using Finalize = void (*)(Data* tool_data);

struct StartToolResult {
  Initialize initialize;
  Finalize finalize;
  Data tool_data;
};
using StartTool = StartToolResult* (*)(unsigned int omp_version, const char* runtime_version);

// ompt_callbacks_t
enum Event : int {
  kThreadBegin = 1,
  kThreadEnd = 2,
  kParallelBegin = 3,
  kParallelEnd = 4,
  kTaskCreate = 5,
  kTaskSchedule = 6,
  kImplicitTask = 7,
  kSyncRegionWait = 16,
  kMutexReleased = 17,
  kDependences = 18,
  kTaskDependence = 19,
  kWork = 20,
  kMasked = 21,
  kSyncRegion = 23,
  kMutexAcquire = 26,
  kMutexAcquired = 27,
  kEventLimit = 40,  // past the highest OpenMP 5.2 number (error, 37)
};

// ompt_set_result_t
enum SetResult : int { kSetError = 0, kSetNever = 1, kSetAlways = 5 };
// ompt_scope_endpoint_t
enum Endpoint : int { kBegin = 1, kEnd = 2 };
// ompt_thread_t
enum ThreadType : int { kThreadInitial = 1, kThreadWorker = 2, kThreadOther = 3 };
// ompt_parallel_flag_t
constexpr int kInvokerProgram = 0x1;
constexpr int kParallelTeam = int(0x80000000u);
// ompt_task_flag_t
constexpr int kTaskInitial = 0x1;
constexpr int kTaskImplicit = 0x2;
constexpr int kTaskExplicit = 0x4;
constexpr int kTaskUndeferred = 0x08000000;
constexpr int kTaskFinal = 0x20000000;
// ompt_task_status_t
enum TaskStatus : int { kTaskComplete = 1, kTaskSwitch = 7 };
// ompt_sync_region_t
enum SyncKind : int {
  kBarrierExplicit = 3,
  kBarrierImplementation = 4,
  kTaskwait = 5,
  kTaskgroup = 6,
  kBarrierImplicitWorkshare = 8,
  kBarrierImplicitParallel = 9,
};
// ompt_mutex_t
enum MutexKind : int {
  kMutexLock = 1,
  kMutexNestLock = 3,
  kMutexCritical = 5,
  kMutexAtomic = 6,
  kMutexOrdered = 7
};
// ompt_work_t
enum WorkKind : int {
  kWorkLoop = 1,
  kWorkSections = 2,
  kSingleExecutor = 3,
  kSingleOther = 4,
  kWorkDistribute = 6
};
// ompt_dependence_type_t
enum DepType : int { kDepIn = 1, kDepInout = 3, kDepMutexinoutset = 4, kDepInoutset = 7 };
// ompt_state_t (the ones reported)
enum State : int {
  kStateWorkSerial = 0x000,
  kStateWorkParallel = 0x001,
  kStateWaitBarrier = 0x010,
  kStateWaitTaskwait = 0x020,
  kStateWaitTaskgroup = 0x021,
  kStateWaitMutex = 0x040,
  kStateIdle = 0x100,
  kStateUndefined = 0x102,
};

// Callback signatures (OpenMP 5.2 §19.5.2).
using ThreadBeginCb = void (*)(int type, Data* thread_data);
using ThreadEndCb = void (*)(Data* thread_data);
using ParallelBeginCb = void (*)(Data* task, const Frame* frame, Data* parallel, unsigned int size,
                                 int flags, const void* codeptr_ra);
using ParallelEndCb = void (*)(Data* parallel, Data* task, int flags, const void* codeptr_ra);
using TaskCreateCb = void (*)(Data* task, const Frame* frame, Data* new_task, int flags,
                              int has_dependences, const void* codeptr_ra);
using TaskScheduleCb = void (*)(Data* prior, int status, Data* next);
using ImplicitTaskCb = void (*)(int endpoint, Data* parallel, Data* task, unsigned int size,
                                unsigned int index, int flags);
using SyncRegionCb = void (*)(int kind, int endpoint, Data* parallel, Data* task,
                              const void* codeptr_ra);
using MutexAcquireCb = void (*)(int kind, unsigned int hint, unsigned int impl,
                                std::uint64_t wait_id, const void* codeptr_ra);
using MutexCb = void (*)(int kind, std::uint64_t wait_id, const void* codeptr_ra);
using DependencesCb = void (*)(Data* task, const Dependence* deps, int ndeps);
using WorkCb = void (*)(int kind, int endpoint, Data* parallel, Data* task, std::uint64_t count,
                        const void* codeptr_ra);
using MaskedCb = void (*)(int endpoint, Data* parallel, Data* task, const void* codeptr_ra);

}  // namespace joule::omp::ompt
