// The C ABI: converts C arguments, calls the runtime, turns exceptions into
// status codes with a per-thread message. No logic lives here.
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#include "card_tasks.hpp"
#include "dlb_internal.hpp"
#include "joule/joule.h"
#include "joule/joule.hpp"
#include "runtime.hpp"
#include "trace_api.hpp"

namespace {

thread_local std::string g_last_error;

template <class F>
int guarded(F&& f) noexcept {
  try {
    f();
    return JOULE_OK;
  } catch (const joule::error& e) {
    g_last_error = e.what();
    return e.code();
  } catch (const std::bad_alloc&) {
    g_last_error = "joule: out of memory";
    return JOULE_ERR_NOMEM;
  } catch (const std::exception& e) {
    g_last_error = std::string("joule: a task threw: ") + e.what();
    return JOULE_ERR_TASK_EXCEPTION;
  } catch (...) {
    g_last_error = "joule: a task threw a non-standard exception";
    return JOULE_ERR_TASK_EXCEPTION;
  }
}

joule::core::Task* to_rt(joule_task_t* t) { return reinterpret_cast<joule::core::Task*>(t); }

int invalid(const char* msg) {
  g_last_error = msg;
  return JOULE_ERR_INVALID;
}

// n elements of `size` bytes cannot be an array in memory: n * size would
// overflow the address space (a count near SIZE_MAX, a negative int cast).
bool impossible_array(size_t n, size_t size) { return n > size_t(PTRDIFF_MAX) / size; }

}  // namespace

namespace joule::api {
// For the other files of the C ABI (memory_api.cpp).
void set_last_error(const std::string& msg) { g_last_error = msg; }
}  // namespace joule::api

extern "C" {

int joule_init(void) { return joule_init_with(nullptr, nullptr, 0); }

int joule_init_with(const char* const* keys, const char* const* values, size_t n) {
  if (n && (!keys || !values)) return invalid("joule_init_with: keys or values is NULL");
  if (impossible_array(n, sizeof(const char*))) return invalid("joule_init_with: n is too large");
  return guarded([&] {
    joule::core::Settings s;
    for (size_t i = 0; i < n; ++i)
      s.emplace_back(keys[i] ? keys[i] : "", values[i] ? values[i] : "");
    joule::engine::Runtime::start(s);
  });
}

int joule_finalize(void) {
  return guarded([] {
    joule::engine::Runtime::stop();
    joule::card_tasks::card_after_stop();  // results kept on the card come home
  });
}

int joule_task_create(joule_task_fn_t fn, size_t args_size, const joule_task_options_t* opts,
                      joule_task_t** task, void** args) {
  if (!task || !args) return invalid("joule_task_create: task or args is NULL");
  *task = nullptr;  // on error nothing was made
  *args = nullptr;
  return guarded([&] {
    auto* t = joule::engine::Runtime::get().tasks().create(fn, args_size, 16,
                                                           joule::detail::to_options(opts));
    *task = reinterpret_cast<joule_task_t*>(t);
    *args = t->args;
  });
}

// kind is an int, not the enum: a C caller may pass any value, and an
// out-of-range enum value is undefined in C++; add_dep rejects it.
int joule_task_add_dep(joule_task_t* task, int kind, const void* addr, size_t bytes) {
  if (!task) return invalid("joule_task_add_dep: task is NULL");
  return guarded(
      [&] { joule::engine::Runtime::get().tasks().add_dep(to_rt(task), kind, addr, bytes); });
}

int joule_task_add_deps(joule_task_t* task, const joule_dep_t* deps, size_t n) {
  if (!task || (n && !deps)) return invalid("joule_task_add_deps: task or deps is NULL");
  if (impossible_array(n, sizeof(joule_dep_t)))
    return invalid("joule_task_add_deps: n is larger than any array of joule_dep_t");
  return guarded([&] { joule::engine::Runtime::get().tasks().add_deps(to_rt(task), deps, n); });
}

int joule_task_submit(joule_task_t* task) {
  if (!task) return invalid("joule_task_submit: task is NULL");
  return guarded([&] { joule::engine::Runtime::get().tasks().submit(to_rt(task)); });
}

int joule_task_discard(joule_task_t* task) {
  if (!task) return invalid("joule_task_discard: task is NULL");
  return guarded([&] { joule::engine::Runtime::get().tasks().discard(to_rt(task)); });
}

int joule_taskwait(void) {
  return guarded([] {
    try {
      joule::engine::Runtime::get().waits().taskwait();
    } catch (...) {
      joule::card_tasks::card_after_failed_taskwait();
      throw;
    }
    joule::card_tasks::card_after_taskwait();  // results kept on the card come home
  });
}

int joule_taskwait_on(const joule_dep_t* deps, size_t n) {
  if (n && !deps) return invalid("joule_taskwait_on: deps is NULL");
  if (impossible_array(n, sizeof(joule_dep_t)))
    return invalid("joule_taskwait_on: n is larger than any array of joule_dep_t");
  return guarded([&] {
    std::vector<joule::dep> v;
    for (size_t i = 0; i < n; ++i)
      v.push_back({static_cast<joule::dep_kind>(deps[i].kind), deps[i].addr, deps[i].bytes,
                   deps[i].reduction});
    joule::engine::Runtime::get().waits().taskwait_on(v.data(), v.size());
    joule::card_tasks::card_after_taskwait_on(v.data(), v.size());
  });
}

void* joule_reduction_private(const void* orig) {
  void* out = nullptr;
  guarded([&] { out = joule::detail::reduction_private(orig); });
  return out;
}

int joule_taskloop(joule_loop_fn_t fn, void* args, int64_t begin, int64_t end, int64_t grainsize,
                   const joule_task_options_t* opts) {
  return guarded([&] {
    joule::engine::Runtime::get().waits().taskloop(fn, args, begin, end, grainsize,
                                                   joule::detail::to_options(opts));
  });
}

int joule_num_workers(void) {
  int n = 0;
  guarded([&] { n = joule::engine::Runtime::get().workers().owned(); });
  return n;
}

int joule_worker_id(void) {
  if (!joule::engine::Runtime::running()) return -1;
  return joule::engine::Runtime::get().workers().current();
}

void joule_iteration_boundary(void) {
  // Observers (energy policies, tracing) act on it; valid anywhere.
  guarded([] { joule::engine::Runtime::get().iteration_boundary(); });
}

void joule_trace_mpi_enter(const char* name) {
  namespace tr = joule::core::trace;
  joule::dlb::talp_mpi_enter();  // the MPI time of DLB's monitoring regions
  if (!tr::enabled()) return;
  tr::begin_state(tr::State::kMpi);
  tr::emit_named(tr::Event::kEvMpiCall, name ? name : "MPI");
}

void joule_trace_mpi_leave(void) {
  namespace tr = joule::core::trace;
  joule::dlb::talp_mpi_leave();
  if (!tr::enabled()) return;
  tr::emit_named(tr::Event::kEvMpiCall, nullptr);
  tr::end_state(tr::State::kMpi);
}

void joule_trace_set_rank(int rank) { joule::core::trace::set_rank(rank); }

int joule_in_final(void) {
  if (!joule::engine::Runtime::running()) return 0;
  return joule::engine::Runtime::get().tasks().in_final() ? 1 : 0;
}

const char* joule_last_error(void) { return g_last_error.c_str(); }

const char* joule_version(void) { return "0.1.0"; }

}  // extern "C"
