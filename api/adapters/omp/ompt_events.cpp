// The OMPT events of threads, parallel regions, their members, barriers,
// taskwait, taskgroup, worksharing, masked and mutual exclusion (OpenMP 5.2
// §19.5.2). Every function here runs only with a tool attached (ompt.hpp).
// Each thread has an initial task of its own until it runs a team's
// member or an explicit task: joule's workers run tasks of any team
// (docs/openmp-llvm-abi.md, "Tools (OMPT)").
#include "ompt.hpp"
#include "team.hpp"

namespace joule::omp::ompt {
namespace {

struct ThreadOmpt {
  bool begun = false;
  Data thread{};
  Data initial_parallel{};
  TaskRecord initial{};
  TaskRecord* current = nullptr;
  int state = kStateUndefined;
  std::uint64_t wait_id = 0;
  int next_mutex_kind = 0;
  static constexpr int kWorkDepth = 16;
  int work[kWorkDepth] = {};  // the open worksharing constructs' kinds
  int work_depth = 0;
  ~ThreadOmpt() { thread_finish(); }
};
thread_local ThreadOmpt t_th;

constexpr Frame kNoFrame{};  // frames are not reported

Data* parallel_of(Team* t) { return reinterpret_cast<Data*>(&t->ompt_parallel); }

}  // namespace

void thread_start(ThreadType type) {
  ThreadOmpt& th = t_th;
  if (th.begun) return;
  th.begun = true;
  th.state = kStateWorkSerial;
  if (auto cb = callback<ThreadBeginCb>(kThreadBegin)) cb(type, &th.thread);
  th.initial = TaskRecord{};
  th.initial.flags = kTaskInitial;
  th.initial.parallel = &th.initial_parallel;
  th.current = &th.initial;
  if (auto cb = callback<ImplicitTaskCb>(kImplicitTask))
    cb(kBegin, &th.initial_parallel, &th.initial.data, 1, 1, kTaskInitial);
}

void thread_finish() {
  ThreadOmpt& th = t_th;
  if (!th.begun || !g_on) return;
  th.begun = false;
  if (auto cb = callback<ImplicitTaskCb>(kImplicitTask))
    cb(kEnd, &th.initial_parallel, &th.initial.data, 1, 1, kTaskInitial);
  if (auto cb = callback<ThreadEndCb>(kThreadEnd)) cb(&th.thread);
  th.current = nullptr;
}

// Before the tool is active (its initializer asking) a thread has not begun.
Data* thread_data() {
  if (!g_on) return nullptr;
  current_task();
  return &t_th.thread;
}

int get_state(std::uint64_t* wait_id) {
  if (!t_th.begun) return kStateUndefined;
  if (wait_id) *wait_id = t_th.wait_id;
  return t_th.state;
}

TaskRecord* current_task() {
  ThreadOmpt& th = t_th;
  if (!th.current) [[unlikely]]
    thread_start(joule_worker_id() >= 0 ? kThreadWorker : kThreadOther);
  return th.current;
}

TaskRecord* enter_task(TaskRecord* rec, State state) {
  TaskRecord* prev = current_task();
  rec->saved_state = t_th.state;
  t_th.state = state;
  t_th.current = rec;
  return prev;
}

void leave_task(TaskRecord* rec, TaskRecord* prev) {
  t_th.current = prev;
  t_th.state = rec->saved_state;
}

void parallel_begin(Team* t, unsigned requested) {
  TaskRecord* enc = current_task();
  t->ompt_parallel = 0;
  t->ompt_outer = enc->parallel;
  if (auto cb = callback<ParallelBeginCb>(kParallelBegin))
    cb(&enc->data, &kNoFrame, parallel_of(t), requested ? requested : unsigned(t->n),
       kInvokerProgram | kParallelTeam, nullptr);
}

void parallel_end(Team* t) {
  TaskRecord* enc = current_task();
  if (auto cb = callback<ParallelEndCb>(kParallelEnd))
    cb(parallel_of(t), &enc->data, kInvokerProgram | kParallelTeam, nullptr);
}

TaskRecord* implicit_begin(TaskRecord* rec, Team* t, int id) {
  *rec = TaskRecord{};
  rec->parallel = parallel_of(t);
  rec->flags = kTaskImplicit;
  rec->thread_num = id;
  TaskRecord* prev = enter_task(rec, kStateWorkParallel);
  if (auto cb = callback<ImplicitTaskCb>(kImplicitTask))
    cb(kBegin, rec->parallel, &rec->data, unsigned(t->n), unsigned(id), kTaskImplicit);
  return prev;
}

void implicit_end(TaskRecord* rec, TaskRecord* prev) {
  if (auto cb = callback<ImplicitTaskCb>(kImplicitTask))
    cb(kEnd, rec->parallel, &rec->data, 0, unsigned(rec->thread_num), kTaskImplicit);
  leave_task(rec, prev);
}

namespace {

State wait_state(SyncKind kind) {
  if (kind == kTaskwait) return kStateWaitTaskwait;
  if (kind == kTaskgroup) return kStateWaitTaskgroup;
  return kStateWaitBarrier;
}

}  // namespace

void sync_begin(SyncKind kind) {
  TaskRecord* rec = current_task();
  if (auto cb = callback<SyncRegionCb>(kSyncRegion))
    cb(kind, kBegin, rec->parallel, &rec->data, nullptr);
  t_th.state = wait_state(kind);
  if (auto cb = callback<SyncRegionCb>(kSyncRegionWait))
    cb(kind, kBegin, rec->parallel, &rec->data, nullptr);
}

void sync_end(SyncKind kind) {
  TaskRecord* rec = current_task();
  if (auto cb = callback<SyncRegionCb>(kSyncRegionWait))
    cb(kind, kEnd, rec->parallel, &rec->data, nullptr);
  t_th.state = (rec->flags & kTaskInitial) ? kStateWorkSerial : kStateWorkParallel;
  if (auto cb = callback<SyncRegionCb>(kSyncRegion))
    cb(kind, kEnd, rec->parallel, &rec->data, nullptr);
}

void work(WorkKind kind, Endpoint ep, std::uint64_t count) {
  TaskRecord* rec = current_task();
  if (auto cb = callback<WorkCb>(kWork)) cb(kind, ep, rec->parallel, &rec->data, count, nullptr);
}

void work_open(WorkKind kind, std::uint64_t count) {
  ThreadOmpt& th = t_th;
  if (th.work_depth < ThreadOmpt::kWorkDepth) th.work[th.work_depth] = kind;
  ++th.work_depth;
  work(kind, kBegin, count);
}

void work_close() {
  ThreadOmpt& th = t_th;
  if (th.work_depth == 0) return;
  --th.work_depth;
  if (th.work_depth < ThreadOmpt::kWorkDepth) work(WorkKind(th.work[th.work_depth]), kEnd, 0);
}

void masked(Endpoint ep) {
  TaskRecord* rec = current_task();
  if (auto cb = callback<MaskedCb>(kMasked)) cb(ep, rec->parallel, &rec->data, nullptr);
}

// The lock's address is its wait identifier. The acquire is reported when
// the lock is taken, just before acquired: the wait itself is not seen here.
void next_mutex_kind(MutexKind kind) { t_th.next_mutex_kind = kind; }

namespace {

int take_kind(int kind) {
  const int k = t_th.next_mutex_kind;
  t_th.next_mutex_kind = 0;
  return k && kind == kMutexLock ? k : kind;
}

}  // namespace

void mutex_acquired(MutexKind given, const void* lock) {
  current_task();
  const int kind = take_kind(given);
  const auto id = std::uint64_t(reinterpret_cast<std::uintptr_t>(lock));
  if (auto cb = callback<MutexAcquireCb>(kMutexAcquire)) cb(kind, 0, 1, id, nullptr);
  if (auto cb = callback<MutexCb>(kMutexAcquired)) cb(kind, id, nullptr);
}

void mutex_released(MutexKind given, const void* lock) {
  current_task();
  const int kind = take_kind(given);
  const auto id = std::uint64_t(reinterpret_cast<std::uintptr_t>(lock));
  if (auto cb = callback<MutexCb>(kMutexReleased)) cb(kind, id, nullptr);
}

}  // namespace joule::omp::ompt
