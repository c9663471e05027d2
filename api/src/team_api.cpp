// The C ABI for language layers (joule/team.h): team members as joule
// tasks, the helping wait, and the OMP_* settings. No logic beyond
// converting arguments.
#include <cstring>

#include "joule/team.h"
#include "omp_settings.hpp"
#include "runtime.hpp"

extern "C" {

int joule_omp_get_settings(joule_omp_settings_t* s) {
  if (!s || s->struct_size < sizeof(joule_omp_settings_t)) return JOULE_ERR_INVALID;
  try {
    using joule::engine::Runtime;
    const joule::core::Config c =
        Runtime::running() ? Runtime::get().config() : joule::core::Config::load({});
    const auto& o = c.get<joule::api::OmpSettings>();
    s->num_threads = o.num_threads;
    s->schedule_kind = int(o.schedule);
    s->schedule_chunk = o.schedule_chunk;
    s->schedule_monotonic = o.schedule_monotonic;
    s->dynamic = o.dynamic;
    s->wait_active = o.wait_policy == joule::api::OmpWait::active;
    s->max_active_levels = o.max_active_levels;
    s->proc_bind = int(o.first_bind());
    s->stacksize = o.stacksize;
    const auto& e = c.get<joule::engine::EngineSettings>();
    s->workers = e.workers;
    s->worker_stack = e.stack_or_default();
    s->spin_us = e.spin_us;
    s->cpus = int(c.cpus.size());
    s->default_device = o.default_device;
    s->target_offload = int(o.target_offload);
    s->display_env = int(o.display_env);
    s->allocator = int(o.allocator);
    s->max_task_priority = o.max_task_priority;
    s->num_teams = o.num_teams;
    s->teams_thread_limit = o.teams_thread_limit;
    return JOULE_OK;
  } catch (const joule::error& e) {
    return e.code();
  }
}

int joule_team_submit(joule_task_t* const* tasks, int n) {
  if (n < 0 || (n && !tasks)) return JOULE_ERR_INVALID;
  joule::engine::Runtime::get().tasks().submit_spread(
      reinterpret_cast<joule::core::Task* const*>(tasks), n);
  return JOULE_OK;
}

void joule_release_private(void) {
  auto& rt = joule::engine::Runtime::get();
  rt.tasks().flush_private(rt.context());
}

int joule_wait_until(int (*done)(void*), void* arg) {
  if (!done) return JOULE_ERR_INVALID;
  joule::engine::Runtime::get().waits().wait_until(done, arg);
  return JOULE_OK;
}

void joule_restrict_waits_by(const int* count) {
  joule::engine::Runtime::get().waits().restrict_to_descendants(count);
}

void joule_wake_waiters(void) { joule::engine::Runtime::get().waits().wake_all(); }

joule_wait_slot_t* joule_current_wait_slot(void) {
  return reinterpret_cast<joule_wait_slot_t*>(joule::engine::Runtime::get().waits().current_slot());
}

void joule_wake_slot(joule_wait_slot_t* slot) {
  if (!slot || !joule::engine::Runtime::running()) return;
  joule::engine::Runtime::get().waits().wake(reinterpret_cast<joule::core::WaitSlot*>(slot));
}

int joule_oversubscribed(void) { return joule::engine::Runtime::get().oversubscribed() ? 1 : 0; }

int joule_worker_count(void) { return joule::engine::Runtime::get().workers().count(); }

int joule_reserve_workers(int want, int* got) {
  if (!got) return JOULE_ERR_INVALID;
  try {
    *got = joule::engine::Runtime::get().lending().reserve_workers(want);
    return JOULE_OK;
  } catch (const joule::error& e) {
    return e.code();
  }
}

}  // extern "C"
