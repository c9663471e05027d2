// ALPI 1.2 (<joule/alpi.h>), the interface TAMPI and TAGASPI use, over the
// same pieces as the Nanos6 API (the engine's Blocking room). Every feature
// is supported (alpi_feature_check); task attributes are placeholders.
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>

#include "joule/alpi.h"
#include "runtime.hpp"

using joule::core::Task;
using joule::engine::Blocking;
using joule::engine::BlockResult;
using joule::engine::Runtime;

namespace {

constexpr int kSupported =
    ALPI_FEATURE_BLOCKING | ALPI_FEATURE_EVENTS | ALPI_FEATURE_RESOURCES | ALPI_FEATURE_SUSPEND;

int to_alpi(BlockResult r) {
  switch (r) {
    case BlockResult::ok:
      return ALPI_SUCCESS;
    case BlockResult::outside_task:
      return ALPI_ERR_OUTSIDE_TASK;
    case BlockResult::not_current:
      return ALPI_ERR_PARAMETER;
    case BlockResult::runs_inline:
      return ALPI_ERR_UNKNOWN;
  }
  return ALPI_ERR_UNKNOWN;
}

Task* as_task(alpi_task* t) { return reinterpret_cast<Task*>(t); }

// joule has no task attributes: an attribute object is a placeholder.
struct Attr {
  int unused;
};

}  // namespace

extern "C" {

const char* alpi_error_string(alpi_error_t error) {
  switch (error) {
    case ALPI_SUCCESS:
      return "Operation succeeded";
    case ALPI_ERR_VERSION:
      return "Incompatible version";
    case ALPI_ERR_NOT_INITIALIZED:
      return "Runtime system not initialized";
    case ALPI_ERR_PARAMETER:
      return "Invalid parameter";
    case ALPI_ERR_OUT_OF_MEMORY:
      return "Failed to allocate memory";
    case ALPI_ERR_OUTSIDE_TASK:
      return "Must run within a task";
    case ALPI_ERR_UNKNOWN:
      return "Unknown error (joule: the task runs inline; nothing can run while it waits)";
    case ALPI_ERR_FEATURE_UNKNOWN:
      return "Feature not supported by joule";
    default:
      return "Error code not recognized";
  }
}

int alpi_info_get(alpi_info_t query, char* buffer, size_t max_length, int* length) {
  const char* text = nullptr;
  switch (query) {
    case ALPI_INFO_RUNTIME_NAME:
      text = "joule";
      break;
    case ALPI_INFO_RUNTIME_VENDOR:
      text = "joule";
      break;
    case ALPI_INFO_VERSION:
      text = "joule (ALPI 1.2)";
      break;
    default:
      return ALPI_ERR_PARAMETER;
  }
  if (!buffer || max_length == 0) return ALPI_ERR_PARAMETER;
  const int n = std::snprintf(buffer, max_length, "%s", text);
  if (length) *length = n < int(max_length) ? n : int(max_length) - 1;
  return ALPI_SUCCESS;
}

int alpi_feature_check(int feature_bitmask) {
  return (feature_bitmask & ~kSupported) == 0 ? ALPI_SUCCESS : ALPI_ERR_FEATURE_UNKNOWN;
}

int alpi_version_check(int major, int minor) {
  return major == ALPI_VERSION_MAJOR && minor >= 0 && minor <= ALPI_VERSION_MINOR
             ? ALPI_SUCCESS
             : ALPI_ERR_VERSION;
}

int alpi_version_get(int* major, int* minor) {
  if (!major || !minor) return ALPI_ERR_PARAMETER;
  *major = ALPI_VERSION_MAJOR;
  *minor = ALPI_VERSION_MINOR;
  return ALPI_SUCCESS;
}

int alpi_task_self(alpi_task** task) {
  if (!task) return ALPI_ERR_PARAMETER;
  *task = reinterpret_cast<alpi_task*>(Runtime::get().blocking().current_task());
  return ALPI_SUCCESS;
}

int alpi_task_block(alpi_task* task) {
  if (!task) return ALPI_ERR_PARAMETER;
  return to_alpi(Runtime::get().blocking().block(as_task(task)));
}

int alpi_task_unblock(alpi_task* task) {
  if (!task) return ALPI_ERR_PARAMETER;
  Runtime::get().blocking().unblock(as_task(task));
  return ALPI_SUCCESS;
}

int alpi_task_waitfor_ns(uint64_t target_ns, uint64_t* actual_ns) {
  if (!Runtime::get().blocking().current_task()) return ALPI_ERR_OUTSIDE_TASK;
  const auto start = std::chrono::steady_clock::now();
  Blocking::runtime().blocking().wait_for_ns(target_ns);
  if (actual_ns)
    *actual_ns =
        uint64_t(std::chrono::nanoseconds(std::chrono::steady_clock::now() - start).count());
  return ALPI_SUCCESS;
}

int alpi_task_events_increase(alpi_task* task, uint64_t increment) {
  if (!task || increment > uint64_t(INT32_MAX)) return ALPI_ERR_PARAMETER;
  if (increment == 0) return ALPI_SUCCESS;
  return to_alpi(Runtime::get().blocking().increase_events(as_task(task), std::int64_t(increment)));
}

int alpi_task_events_test(alpi_task* task, uint64_t* has_events) {
  if (!task || !has_events) return ALPI_ERR_PARAMETER;
  *has_events = as_task(task)->events.load(std::memory_order_acquire) > 0 ? 1 : 0;
  return ALPI_SUCCESS;
}

int alpi_task_events_decrease(alpi_task* task, uint64_t decrement) {
  if (!task || decrement > uint64_t(INT32_MAX)) return ALPI_ERR_PARAMETER;
  if (decrement == 0) return ALPI_SUCCESS;
  return Runtime::get().blocking().decrease_events(as_task(task), std::int64_t(decrement))
             ? ALPI_SUCCESS
             : ALPI_ERR_PARAMETER;
}

int alpi_attr_create(alpi_attr** attr) {
  if (!attr) return ALPI_ERR_PARAMETER;
  *attr = reinterpret_cast<alpi_attr*>(new (std::nothrow) Attr{});
  return *attr ? ALPI_SUCCESS : ALPI_ERR_OUT_OF_MEMORY;
}

int alpi_attr_destroy(alpi_attr* attr) {
  if (!attr) return ALPI_ERR_PARAMETER;
  delete reinterpret_cast<Attr*>(attr);
  return ALPI_SUCCESS;
}

int alpi_attr_init(alpi_attr* attr) { return attr ? ALPI_SUCCESS : ALPI_ERR_PARAMETER; }

int alpi_attr_size(uint64_t* attr_size) {
  if (!attr_size) return ALPI_ERR_PARAMETER;
  *attr_size = sizeof(Attr);
  return ALPI_SUCCESS;
}

int alpi_task_spawn(void (*body)(void*), void* body_args, void (*completion_callback)(void*),
                    void* completion_args, const char* label, const alpi_attr*) {
  if (!body || !completion_callback) return ALPI_ERR_PARAMETER;
  Runtime::get().blocking().spawn_independent(body, body_args, completion_callback, completion_args,
                                              label);
  return ALPI_SUCCESS;
}

int alpi_cpu_count(uint64_t* count) {
  if (!count) return ALPI_ERR_PARAMETER;
  *count = uint64_t(Blocking::runtime().workers().owned());
  return ALPI_SUCCESS;
}

// The seat the thread runs on: a worker's index, or the worker a spare
// stands in for. The main thread is worker 0 and counts as inside a task
// even in main() (under OmpSs-2 main is a task; TAMPI asks from there).
// Another thread inside a task runs on none of joule's CPUs: it is given
// logical id 0, an arbitrary one in range as ALPI allows. Outside any task
// and off every seat: ALPI_ERR_OUTSIDE_TASK, as ALPI 1.0 says.
int alpi_cpu_logical_id(uint64_t* logical_id) {
  if (!logical_id) return ALPI_ERR_PARAMETER;
  Blocking& blocking = Blocking::runtime().blocking();
  const int seat = blocking.current_worker();
  if (seat < 0 && !blocking.current_task()) return ALPI_ERR_OUTSIDE_TASK;
  // Guests on borrowed CPUs come after the owned ones: ids stay below
  // alpi_cpu_count.
  const int owned = Blocking::runtime().workers().owned();
  *logical_id = seat < 0 ? 0 : uint64_t(seat % owned);
  return ALPI_SUCCESS;
}

int alpi_cpu_system_id(uint64_t* system_id) {
  if (!system_id) return ALPI_ERR_PARAMETER;
  Blocking& blocking = Blocking::runtime().blocking();
  if (blocking.current_worker() < 0 && !blocking.current_task()) return ALPI_ERR_OUTSIDE_TASK;
  const int cpu = sched_getcpu();
  if (cpu < 0) return ALPI_ERR_UNKNOWN;
  *system_id = uint64_t(cpu);
  return ALPI_SUCCESS;
}

int alpi_task_suspend_mode_set(alpi_task* task, alpi_suspend_mode_t suspend_mode, uint64_t args) {
  if (!task || suspend_mode < ALPI_SUSPEND_NONE || suspend_mode > ALPI_SUSPEND_EVENT_SUBMIT)
    return ALPI_ERR_PARAMETER;
  return to_alpi(Runtime::get().blocking().set_suspend_mode(
      as_task(task), Blocking::SuspendMode(int(suspend_mode)), args));
}

int alpi_task_suspend(alpi_task* task) {
  if (!task) return ALPI_ERR_PARAMETER;
  return to_alpi(Blocking::runtime().blocking().suspend(as_task(task)));
}

}  // extern "C"
