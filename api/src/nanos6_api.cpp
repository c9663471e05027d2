// The Nanos6 user API (<joule/nanos6/nanos6.h>) over the engine. Calls
// joule cannot honour stop the program with a message naming the call, as
// Nanos6's own checks do; they never return as if they had worked.
#include <sched.h>

#include <algorithm>

#include <cstdio>
#include <cstdlib>

#include "joule/nanos6/nanos6.h"
#include "runtime.hpp"

using joule::core::Task;
using joule::engine::Blocking;
using joule::engine::BlockResult;
using joule::engine::Runtime;

namespace {

[[noreturn]] void fail(const char* call, const char* why) {
  std::fprintf(stderr, "joule: %s: %s\n", call, why);
  std::abort();
}

void check(const char* call, BlockResult r) {
  switch (r) {
    case BlockResult::ok:
      return;
    case BlockResult::outside_task:
      fail(call, "called outside a task");
    case BlockResult::not_current:
      fail(call, "the context is not the calling task's (each task blocks only itself)");
    case BlockResult::runs_inline:
      fail(call,
           "the task runs inline (under a final task, or created in the serial inline mode "
           "before the first Nanos6 call); nothing can run while it waits");
  }
}

}  // namespace

extern "C" {

unsigned int nanos6_get_num_cpus(void) { return unsigned(Blocking::runtime().workers().owned()); }

unsigned int nanos_get_num_cpus(void) { return nanos6_get_num_cpus(); }

unsigned int nanos6_get_total_num_cpus(void) {
  return unsigned(Blocking::runtime().workers().count());
}

// 0 on a thread that runs on no worker's CPU (as before spares existed).
long nanos6_get_current_virtual_cpu(void) {
  return std::max(Blocking::runtime().blocking().current_worker(), 0);
}

long nanos6_get_current_system_cpu(void) { return sched_getcpu(); }

void* nanos6_get_current_blocking_context(void) {
  Task* t = Runtime::get().blocking().current_task();
  if (!t) fail("nanos6_get_current_blocking_context", "called outside a task");
  return t;
}

void nanos6_block_current_task(void* blocking_context) {
  if (!blocking_context) fail("nanos6_block_current_task", "the blocking context is NULL");
  check("nanos6_block_current_task",
        Runtime::get().blocking().block(static_cast<Task*>(blocking_context)));
}

void nanos6_unblock_task(void* blocking_context) {
  if (!blocking_context) fail("nanos6_unblock_task", "the blocking context is NULL");
  Runtime::get().blocking().unblock(static_cast<Task*>(blocking_context));
}

void* nanos6_get_current_event_counter(void) {
  Task* t = Runtime::get().blocking().current_task();
  if (!t) fail("nanos6_get_current_event_counter", "called outside a task");
  return t;
}

void nanos6_increase_current_task_event_counter(void* event_counter, unsigned int increment) {
  if (!event_counter) fail("nanos6_increase_current_task_event_counter", "the counter is NULL");
  if (increment == 0) return;
  check("nanos6_increase_current_task_event_counter",
        Runtime::get().blocking().increase_events(static_cast<Task*>(event_counter), increment));
}

void nanos6_decrease_task_event_counter(void* event_counter, unsigned int decrement) {
  if (!event_counter) fail("nanos6_decrease_task_event_counter", "the counter is NULL");
  if (decrement == 0) return;
  if (!Runtime::get().blocking().decrease_events(static_cast<Task*>(event_counter), decrement))
    fail("nanos6_decrease_task_event_counter", "more events decreased than the task increased");
}

void nanos6_register_polling_service(const char* service_name, nanos6_polling_service_t service,
                                     void* service_data) {
  if (!service) fail("nanos6_register_polling_service", "the service function is NULL");
  Blocking::runtime().blocking().add_polling_service(service_name, service, service_data);
}

void nanos6_unregister_polling_service(const char* service_name, nanos6_polling_service_t service,
                                       void* service_data) {
  if (!Blocking::runtime().blocking().remove_polling_service(service, service_data)) {
    // Not fatal: a service that returned true has left the list already.
    std::fprintf(stderr, "joule: nanos6_unregister_polling_service: '%s' is not registered\n",
                 service_name ? service_name : "");
  }
}

}  // extern "C"
