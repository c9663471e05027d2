// The OMPT events of explicit tasks (OpenMP 5.2 §19.5.2.6-19.5.2.10):
// creation, dependences, and the switches to and from a task on the thread
// that runs it. A deferred task's record lives in its block (task.cpp); an
// included or undeferred one, run on its creator's thread, gets one of
// this thread's stack of records, since the LLVM ABI runs its body between
// two calls (task_inline.cpp).
#include <memory>
#include <vector>

#include "ompt.hpp"

namespace joule::omp::ompt {
namespace {

constexpr Frame kNoFrame{};

struct InlineRecord {
  TaskRecord rec;
  TaskRecord* prev = nullptr;
};

struct TaskThread {
  TaskRecord* last_created = nullptr;  // for the dependences that follow its creation
  std::vector<std::unique_ptr<InlineRecord>> inline_records;
  std::size_t inline_depth = 0;
  const joule_dep_t* next_deps = nullptr;  // next_inline_deps
  std::size_t next_n = 0;
};
thread_local TaskThread t_tasks;

int dependence_type(int joule_kind) {
  switch (joule_kind) {
    case JOULE_DEP_IN:
      return kDepIn;
    case JOULE_DEP_COMMUTATIVE:
      return kDepMutexinoutset;
    case JOULE_DEP_CONCURRENT:
      return kDepInoutset;
    default:
      return kDepInout;
  }
}

void create(TaskRecord* rec, int flags, bool has_deps, const void* fn) {
  TaskRecord* enc = current_task();
  *rec = TaskRecord{};
  rec->flags = flags;
  rec->parallel = enc->parallel;
  rec->thread_num = enc->thread_num;
  t_tasks.last_created = rec;
  if (auto cb = callback<TaskCreateCb>(kTaskCreate))
    cb(&enc->data, &kNoFrame, &rec->data, rec->flags, has_deps ? 1 : 0, fn);
}

}  // namespace

void task_created(TaskRecord* rec, bool final_task, bool has_deps, const void* fn) {
  create(rec, kTaskExplicit | (final_task ? kTaskFinal : 0), has_deps, fn);
}

// Before the task is submitted: it cannot have started yet.
void task_dependences(const joule_dep_t* deps, std::size_t n) {
  TaskRecord* rec = t_tasks.last_created;
  auto cb = callback<DependencesCb>(kDependences);
  if (!rec || !cb || n == 0) return;
  std::vector<Dependence> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].variable.ptr = const_cast<void*>(deps[i].addr);
    out[i].dependence_type = dependence_type(deps[i].kind);
  }
  cb(&rec->data, out.data(), int(n));
}

TaskRecord* task_begin(TaskRecord* rec) {
  TaskRecord* prev = enter_task(rec, kStateWorkParallel);
  if (auto cb = callback<TaskScheduleCb>(kTaskSchedule)) cb(&prev->data, kTaskSwitch, &rec->data);
  return prev;
}

void task_end(TaskRecord* rec, TaskRecord* prev) {
  if (auto cb = callback<TaskScheduleCb>(kTaskSchedule)) cb(&rec->data, kTaskComplete, &prev->data);
  leave_task(rec, prev);
}

void inline_begin(bool final_task) {
  TaskThread& tt = t_tasks;
  if (tt.inline_depth == tt.inline_records.size())
    tt.inline_records.push_back(std::make_unique<InlineRecord>());
  InlineRecord& r = *tt.inline_records[tt.inline_depth++];
  const std::size_t n = tt.next_n;
  tt.next_n = 0;
  create(&r.rec, kTaskExplicit | kTaskUndeferred | (final_task ? kTaskFinal : 0), n != 0, nullptr);
  if (n) task_dependences(tt.next_deps, n);
  r.prev = task_begin(&r.rec);
}

void next_inline_deps(const joule_dep_t* deps, std::size_t n) {
  t_tasks.next_deps = deps;
  t_tasks.next_n = n;
}

void inline_end() {
  TaskThread& tt = t_tasks;
  if (tt.inline_depth == 0) return;  // begun before the tool was attached
  InlineRecord& r = *tt.inline_records[--tt.inline_depth];
  task_end(&r.rec, r.prev);
}

}  // namespace joule::omp::ompt
