// Internal to api/src: the state and helpers that dlb_api.cpp (LeWI verbs)
// and dlb_drom_api.cpp (DROM, misc) share.
#pragma once

#include <sched.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "dlb_args.hpp"
#include "joule/dlb.h"
#include "joule/dlb/dlb_talp.h"
#include "lending_entry.hpp"
#include "lending_settings.hpp"
#include "log.hpp"

namespace joule::dlb {

std::mutex& api_mutex();
bool& initialised();  // DLB_Init called (and no DLB_Finalize since); api_mutex held

// What DLB keeps for a participant besides its session: its callbacks and
// the reclaims still in flight. The process has one (DLB_Init); each handle
// of the subprocess API (dlb_sp.h) has its own, with a session of its own.
struct Participant {
  struct Callback {
    dlb_callback_t fn = nullptr;
    void* arg = nullptr;
  };
  Callback callbacks[dlb_callback_disable_cpu_set + 1];  // by kind (1..9)
  std::set<int> pending;  // reclaimed CPUs still run by their borrower
};
Participant& process_participant();
// The participant the current call acts for (set by run_as; api_mutex held).
Participant*& acting();

struct SubProcess {
  std::shared_ptr<lending::Session> session;
  Participant part;
};
// The live subprocess handle h, or null (dlb_sp_api.cpp); api_mutex held.
SubProcess* live_handle(dlb_handler_t h);
bool live(dlb_handler_t h);  // takes api_mutex

std::vector<int> from_mask(const_dlb_cpu_set_t mask);
void to_mask(const std::vector<int>& cpus, dlb_cpu_set_t mask);

// The polling step of every call (dlb_api.cpp): completed reclaims call
// enable_cpu; borrowed CPUs claimed by their owner call disable_cpu and go
// back (stay, when no callback can say so). Caller holds api_mutex; callbacks are the acting
// participant's.
void poll(lending::Session& s);
// Tells the acting participant that it may run on `cpus` now, or must stop
// running on them, with the callbacks it set, as DLB does: the *_cpu_set
// callback once for the set, else the per-CPU one for each; a single CPU
// through the per-CPU one, else as a set of one (DLB user guide, "LeWI mask
// callbacks"), or set_num_threads with the count afterwards when only that
// one is set. Does nothing for an empty list or without a callback; false
// when the participant set none (it cannot be told of the change).
bool enable_cpus(lending::Session& s, const std::vector<int>& cpus);
bool disable_cpus(lending::Session& s, const std::vector<int>& cpus);
// Calls the set_process_mask callback; false if there is none.
bool call_mask_callback(const std::vector<int>& cpus);

// A verb's table outcome as DLB's code; an acquired CPU calls enable_cpu,
// a pending reclaim is remembered for the next poll (dlb_api.cpp).
int after_acquire(lending::Session& s, int cpu, lending::Outcome o);
int simple(lending::Outcome o);
bool valid_cpu(lending::Session& s, int cpu);

// DLB_ARGS (dlb_async.cpp). take_args: the environment's DLB_ARGS and then
// DLB_Init's string, DLB_ERR_NOCOMP (logged, naming the option) for one
// joule refuses; `settings`: the lending settings it loaded them with; dlb_args: what DLB_Init
// took. verbose_callback: a line on stderr per callback with --verbose. async_start/stop: the
// --mode=async helper (stop releases `held`, api_mutex, while it joins); async_request: a request
// of ncpus (DLB_MAX_CPUS, DLB_DELETE_REQUESTS) of which got_now were granted at once stands until
// met (DLB answers DLB_NOTED for it). Caller holds api_mutex.
int take_args(const char* dlb_args, lending::LendingSettings& settings);
const lending::DlbArgs& dlb_args();
void verbose_callback(const char* kind, const std::vector<int>& cpus);
void async_start();
void async_stop(std::unique_lock<std::mutex>& held);
bool async_request(lending::Session& s, int ncpus, int got_now);  // true: it stands

// The CPUs a launcher registered for pid (DLB_DROM_PreInit) in the node
// table (dlb_preinit_api.cpp); DLB_Init without a mask takes them.
std::vector<int> preregistered_cpus(pid_t pid);

// DLB_Init / DLB_Finalize's parts in other files; caller holds api_mutex.
int barrier_init();  // attaches the node's default barrier (dlb_barrier.cpp)
void barrier_finalize();
void talp_init();  // starts the global monitoring region (dlb_talp.cpp)
void talp_finalize();
// A thread enters / leaves a blocking MPI call (joule_trace_mpi_enter /
// leave, from libjoule-mpi): its MPI time for the monitoring regions.
void talp_mpi_enter();
void talp_mpi_leave();
// DLB_SetObserverRole (dlb_observer.cpp): whether the calling thread is an
// observer, and the CPU time observer threads spent as such (not useful).
bool thread_is_observer();
std::int64_t observer_cpu_ns();
// TALP at node level (dlb_talp_node.cpp); caller holds api_mutex. publish
// writes this process's current totals of a region for the node's readers,
// unpublish (DLB_Finalize) removes them all; query sums what the node's
// processes published for region `name` (NULL: the global one).
void talp_publish(const std::string& region, std::int64_t useful, std::int64_t mpi);
void talp_unpublish();
int talp_query_node(const char* name, dlb_node_metrics_t* m);

// Runs f(s) for participant p after polling; DLB's code for "disabled".
// Caller holds api_mutex.
template <class F>
int run_as(Participant& p, lending::Session& s, F&& f, bool allowed_when_disabled) {
  if (thread_is_observer()) return DLB_ERR_PERM;  // LeWI ignores observer threads
  acting() = &p;
  try {
    poll(s);
    if (!allowed_when_disabled && s.hints().hint() == lending::Hint::Disabled)
      return DLB_ERR_DISBLD;
    return f(s);
  } catch (const std::exception& e) {
    joule::core::log_error(std::string("DLB: ") + e.what());
    return DLB_ERR_UNKNOWN;
  }
}

// Runs f(session) for the process under the DLB lock after polling; DLB's
// error codes for "not initialised" and "disabled".
template <class F>
int call(F&& f, bool allowed_when_disabled = false) {
  std::lock_guard guard(api_mutex());
  if (!initialised()) return DLB_ERR_NOINIT;
  auto s = lending::active_session();
  if (!s) return DLB_ERR_NOINIT;
  return run_as(process_participant(), *s, f, allowed_when_disabled);
}

// A DLB_*_sp form: verb(h, args...), DLB_ERR_NOINIT for a null handle
// (call_on answers the same for a finalised one).
template <class Verb, class... Args>
int sp(dlb_handler_t h, Verb verb, Args... args) {
  return h ? verb(h, args...) : DLB_ERR_NOINIT;
}

// The same for subprocess handle h, or for the process when h is null (the
// DLB_* forms; the DLB_*_sp ones refuse a null handle before).
template <class F>
int call_on(dlb_handler_t h, F&& f, bool allowed_when_disabled = false) {
  if (!h) return call(f, allowed_when_disabled);
  std::lock_guard guard(api_mutex());
  SubProcess* sp = live_handle(h);
  if (!sp) return DLB_ERR_NOINIT;
  return run_as(sp->part, *sp->session, f, allowed_when_disabled);
}

}  // namespace joule::dlb
