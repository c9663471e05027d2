// The exported C++ entry points behind joule.hpp's templates.
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "card_tasks.hpp"
#include "joule/joule.hpp"
#include "log.hpp"
#include "runtime.hpp"

namespace joule::detail {
namespace {

core::Task* to_rt(task* t) { return reinterpret_cast<core::Task*>(t); }

// The calls below start the runtime implicitly when nothing started it. A
// setting it cannot start with has no caller to go to then (the program
// did not ask for a start): the message names the key and its allowed
// values, and the process ends with status 1, not std::terminate's abort.
engine::Runtime& runtime_or_exit() {
  if (engine::Runtime::running()) [[likely]]
    return engine::Runtime::get();
  try {
    return engine::Runtime::get();
  } catch (const error& e) {
    std::fprintf(stderr, "%s\njoule: the runtime could not start; exiting\n", e.what());
    std::exit(1);
  }
}

}  // namespace

task* task_create(task_fn fn, std::size_t args_size, std::size_t args_align,
                  const task_options& opts, void** args) {
  core::Task* t = runtime_or_exit().tasks().create(fn, args_size, args_align, opts);
  *args = t->args;
  return reinterpret_cast<task*>(t);
}

void task_add_deps(task* t, const dep* deps, std::size_t n) {
  engine::Runtime::get().tasks().add_deps(to_rt(t), deps, n);
}

void task_submit(task* t) { engine::Runtime::get().tasks().submit(to_rt(t)); }

void task_discard(task* t) noexcept {
  try {
    engine::Runtime::get().tasks().discard(to_rt(t));
  } catch (...) {
  }
}

void taskwait() {
  try {
    runtime_or_exit().waits().taskwait();
  } catch (...) {
    card_tasks::card_after_failed_taskwait();  // what did finish still comes home
    throw;
  }
  card_tasks::card_after_taskwait();  // results kept on the card come home
}

void taskwait_on(const dep* deps, std::size_t n) {
  runtime_or_exit().waits().taskwait_on(deps, n);
  card_tasks::card_after_taskwait_on(deps, n);
}

void taskloop(loop_fn fn, void* ctx, std::int64_t begin, std::int64_t end, std::int64_t grainsize,
              const task_options& opts) {
  runtime_or_exit().waits().taskloop(fn, ctx, begin, end, grainsize, opts);
}

void runtime_start(const std::pair<std::string, std::string>* settings, std::size_t n) {
  core::Settings s(settings, settings + n);
  engine::Runtime::start(s);
}

// joule::runtime's destructor, which must not throw: inside a task it
// cannot stop (it would wait for that task), so it says so and leaves the
// runtime running; joule_finalize outside every task, or exit, stops it.
void runtime_stop() {
  if (engine::Runtime::in_task()) {
    core::log_error(
        "joule::runtime destroyed inside a task: the runtime keeps running until "
        "joule_finalize() outside every task or the process exits");
    return;
  }
  engine::Runtime::stop();
  card_tasks::card_after_stop();
}

std::size_t checked_bytes(std::size_t count, std::size_t elem_size) {
  if (elem_size != 0 && count > std::numeric_limits<std::size_t>::max() / elem_size)
    throw error(JOULE_ERR_INVALID, "joule: region of " + std::to_string(count) + " elements of " +
                                       std::to_string(elem_size) + " bytes overflows size_t");
  return count * elem_size;
}

}  // namespace joule::detail
