// Internal to api/src: the state and helpers that dlb_api.cpp (LeWI verbs)
// and dlb_drom_api.cpp (DROM, misc) share.
#pragma once

#include <sched.h>

#include <cstdio>
#include <mutex>
#include <vector>

#include "joule/dlb.h"
#include "lending_entry.hpp"
#include "log.hpp"

namespace joule::dlb {

std::mutex& api_mutex();
bool& initialised();  // DLB_Init called (and no DLB_Finalize since); api_mutex held

std::vector<int> from_mask(const_dlb_cpu_set_t mask);
void to_mask(const std::vector<int>& cpus, dlb_cpu_set_t mask);

// The polling step of every call (dlb_api.cpp): completed reclaims call
// enable_cpu; borrowed CPUs claimed by their owner call disable_cpu and go
// back. Caller holds api_mutex.
void poll(lending::Session& s);
// Calls the set_process_mask callback; false if there is none.
bool call_mask_callback(const std::vector<int>& cpus);

// A verb's table outcome as DLB's code; an acquired CPU calls enable_cpu,
// a pending reclaim is remembered for the next poll (dlb_api.cpp).
int after_acquire(lending::Session& s, int cpu, lending::Outcome o);
int simple(lending::Outcome o);
bool valid_cpu(lending::Session& s, int cpu);

// DLB_Init / DLB_Finalize's parts in other files; caller holds api_mutex.
int barrier_init();  // attaches the node's default barrier (dlb_barrier.cpp)
void barrier_finalize();
void talp_init();  // starts the global monitoring region (dlb_talp.cpp)
void talp_finalize();
// A thread enters / leaves a blocking MPI call (joule_trace_mpi_enter /
// leave, from libjoule-mpi): its MPI time for the monitoring regions.
void talp_mpi_enter();
void talp_mpi_leave();

// Runs f(session) under the DLB lock after polling; DLB's error codes for
// "not initialised" and "disabled".
template <class F>
int call(F&& f, bool allowed_when_disabled = false) {
  std::lock_guard guard(api_mutex());
  if (!initialised()) return DLB_ERR_NOINIT;
  auto s = lending::active_session();
  if (!s) return DLB_ERR_NOINIT;
  try {
    poll(*s);
    if (!allowed_when_disabled && s->hint() == lending::Hint::Disabled) return DLB_ERR_DISBLD;
    return f(*s);
  } catch (const std::exception& e) {
    joule::core::log_error(std::string("DLB: ") + e.what());
    return DLB_ERR_UNKNOWN;
  }
}

}  // namespace joule::dlb
