// DLB-compatible entry points (joule/dlb.h) over the lending session:
// management, hints and callbacks, for the process and (the *_sp forms of
// dlb_sp.h) for subprocess handles (LeWI verbs: dlb_lewi_api.cpp; masks:
// dlb_mask_api.cpp; DROM: dlb_drom_api.cpp; handles: dlb_sp_api.cpp).
// Polling mode: callbacks run inside DLB_* calls, on the caller's thread.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "config.hpp"
#include "dlb_internal.hpp"
#include "joule/dlb/dlb_sp.h"
#include "lending_settings.hpp"
#include "log.hpp"

namespace joule::dlb {
namespace {

using joule::lending::CpuState;
using joule::lending::Outcome;
using joule::lending::Session;
using CpuCallback = void (*)(int, void*);
using MaskCallback = void (*)(const_dlb_cpu_set_t, void*);
using CountCallback = void (*)(int, void*);

int set_hint(dlb_handler_t h, joule::lending::Hint hint) {
  return call_on(
      h, [&](Session& s) -> int { return s.set_hint(hint), DLB_SUCCESS; }, true);
}

int set_max_parallelism(dlb_handler_t h, int max) {
  return call_on(
      h, [&](Session& s) -> int { return s.hints().set_max_parallelism(max), DLB_SUCCESS; });
}

bool valid_callback(dlb_callbacks_t which) {
  return int(which) >= int(dlb_callback_set_num_threads) &&
         int(which) <= int(dlb_callback_disable_cpu_set);
}

// One kind of change (enable or disable) through the per-CPU callback or
// the set callback, whichever the participant set (the set one first for
// several CPUs, the per-CPU one first for one); with neither, a classic
// LeWI runtime's set_num_threads gets the number of CPUs the process runs
// on afterwards (DLB_Init without a mask: DLB's lewi_custom_rt example).
// False when the participant set none of the three: it cannot be told.
bool cpu_change(Session& s, bool enable, const std::vector<int>& cpus) {
  if (cpus.empty()) return true;
  const auto per_cpu = enable ? dlb_callback_enable_cpu : dlb_callback_disable_cpu;
  const auto per_set = enable ? dlb_callback_enable_cpu_set : dlb_callback_disable_cpu_set;
  const Participant::Callback one = acting()->callbacks[per_cpu];
  const Participant::Callback set = acting()->callbacks[per_set];
  const Participant::Callback num = acting()->callbacks[dlb_callback_set_num_threads];
  if (set.fn && (cpus.size() > 1 || !one.fn)) {
    cpu_set_t mask;
    to_mask(cpus, &mask);
    verbose_callback(enable ? "enable_cpu_set" : "disable_cpu_set", cpus);
    reinterpret_cast<MaskCallback>(set.fn)(&mask, set.arg);
  } else if (one.fn) {
    for (int c : cpus) {
      verbose_callback(enable ? "enable_cpu" : "disable_cpu", {c});
      reinterpret_cast<CpuCallback>(one.fn)(c, one.arg);
    }
  } else if (num.fn) {
    // Claimed CPUs still count as held until they are given back.
    const int held = s.loans().held_count() - (enable ? 0 : int(cpus.size()));
    verbose_callback("set_num_threads", {std::max(held, 0)});
    reinterpret_cast<CountCallback>(num.fn)(std::max(held, 0), num.arg);
  } else {
    return false;
  }
  return true;
}

int callback_set(dlb_handler_t h, dlb_callbacks_t which, dlb_callback_t callback, void* arg) {
  if (!valid_callback(which)) return DLB_ERR_NOCBK;
  return call_on(
      h,
      [&](Session&) -> int {
        return acting()->callbacks[which] = {callback, arg}, DLB_SUCCESS;
      },
      true);
}

int callback_get(dlb_handler_t h, dlb_callbacks_t which, dlb_callback_t* callback, void** arg) {
  if (!valid_callback(which)) return DLB_ERR_NOCBK;
  return call_on(
      h,
      [&](Session&) -> int {
        const Participant::Callback cb = acting()->callbacks[which];
        if (callback) *callback = cb.fn;
        if (arg) *arg = cb.arg;
        return cb.fn ? DLB_SUCCESS : DLB_ERR_NOCBK;
      },
      true);
}

}  // namespace

bool enable_cpus(Session& s, const std::vector<int>& cpus) { return cpu_change(s, true, cpus); }
bool disable_cpus(Session& s, const std::vector<int>& cpus) { return cpu_change(s, false, cpus); }

Participant& process_participant() {
  static Participant p;
  return p;
}

Participant*& acting() {
  static Participant* p = &process_participant();
  return p;
}

std::mutex& api_mutex() {
  static std::mutex m;
  return m;
}

bool& initialised() {
  static bool init = false;
  return init;
}

std::vector<int> from_mask(const_dlb_cpu_set_t mask) {
  std::vector<int> out;
  const auto* set = static_cast<const cpu_set_t*>(mask);
  for (int c = 0; set && c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, set)) out.push_back(c);
  return out;
}

void to_mask(const std::vector<int>& cpus, dlb_cpu_set_t mask) {
  auto* set = static_cast<cpu_set_t*>(mask);
  if (!set) return;
  CPU_ZERO(set);
  for (int c : cpus)
    if (c < CPU_SETSIZE) CPU_SET(c, set);
}

void poll(Session& s) {
  std::set<int>& pending = acting()->pending;
  std::vector<int> back;
  for (auto it = pending.begin(); it != pending.end();) {
    const auto w = s.table().load(*it);
    if (w.owner != s.pid()) {
      it = pending.erase(it);
    } else if (runs_on(w, s.pid()) && w.state != CpuState::Claimed) {
      back.push_back(*it);
      it = pending.erase(it);
    } else {
      ++it;
    }
  }
  enable_cpus(s, back);
  std::vector<int> claimed;
  for (int c = 0; c < s.table().ncpus(); ++c) {
    const auto w = s.table().load(c);
    if (w.state == CpuState::Claimed && w.guest == s.pid()) claimed.push_back(c);
  }
  // A participant that cannot be told keeps running there until it gives
  // the CPUs back itself.
  if (!disable_cpus(s, claimed)) return;
  for (int c : claimed) s.loans().return_cpu(c);
}

bool call_mask_callback(const std::vector<int>& cpus) {
  const Participant::Callback cb = acting()->callbacks[dlb_callback_set_process_mask];
  if (!cb.fn) return false;
  cpu_set_t set;
  to_mask(cpus, &set);
  reinterpret_cast<MaskCallback>(cb.fn)(&set, cb.arg);
  return true;
}

int after_acquire(Session& s, int cpu, Outcome o) {
  switch (o) {
    case Outcome::Done:
      enable_cpus(s, {cpu});
      return DLB_SUCCESS;
    case Outcome::Pending:
      acting()->pending.insert(cpu);
      return DLB_NOTED;
    case Outcome::NoChange:
      return DLB_NOUPDT;
    case Outcome::Illegal:
      break;
  }
  return DLB_ERR_PERM;
}

int simple(Outcome o) {
  if (o == Outcome::Done) return DLB_SUCCESS;
  return o == Outcome::Illegal ? DLB_ERR_PERM : DLB_NOUPDT;
}

bool valid_cpu(Session& s, int cpu) { return cpu >= 0 && cpu < s.table().ncpus(); }

}  // namespace joule::dlb

using namespace joule::dlb;

extern "C" {

int DLB_Init(int /*ncpus*/, const_dlb_cpu_set_t mask, const char* dlb_args) {
  std::lock_guard guard(api_mutex());
  if (initialised()) return DLB_ERR_INIT;
  joule::lending::LendingSettings settings;
  if (const int rc = take_args(dlb_args, settings); rc != DLB_SUCCESS) return rc;
  std::string why;
  const std::string mode = settings.mode == joule::lending::LewiMode::local ? "local" : "node";
  // A mask given empty: a process that owns no CPU and only borrows (DLB's
  // mask consumer); no mask: what a launcher registered, else the affinity.
  std::vector<int> owned = from_mask(mask);
  const bool owns_none = mask && owned.empty();
  if (!mask && mode == "node") owned = preregistered_cpus(::getpid());
  if (joule::lending::start_standalone(mode, owned, why, owns_none) !=
      joule::lending::StartResult::Ok) {
    joule::core::log_error("DLB_Init: " + why);
    return why.find("owned by") != std::string::npos ? DLB_ERR_PERM : DLB_ERR_NOSHMEM;
  }
  initialised() = true;
  talp_init();
  barrier_init();  // a failure is logged; DLB_Barrier then says DLB_ERR_PERM
  async_start();
  if (!joule::dlb::dlb_args().verbose.empty())
    std::fprintf(stderr, "DLB[%d]: initialised, %s mode, %zu CPUs owned\n", int(::getpid()),
                 joule::dlb::dlb_args().async ? "async" : "polling", owned.size());
  return DLB_SUCCESS;
}

int DLB_Finalize(void) {
  std::unique_lock guard(api_mutex());
  if (!initialised()) return DLB_ERR_NOINIT;
  async_stop(guard);
  if (!initialised()) return DLB_ERR_NOINIT;  // finalised meanwhile by another thread
  initialised() = false;
  barrier_finalize();
  talp_finalize();
  process_participant() = Participant{};
  joule::lending::stop_standalone();
  return DLB_SUCCESS;
}

int DLB_Enable(void) { return set_hint(nullptr, joule::lending::Hint::Enabled); }
int DLB_Disable(void) { return set_hint(nullptr, joule::lending::Hint::Disabled); }
int DLB_SetMaxParallelism(int max) { return set_max_parallelism(nullptr, max); }
int DLB_UnsetMaxParallelism(void) { return set_max_parallelism(nullptr, 0); }
int DLB_Single(void) {
  return call(
      [](Session& s) -> int { return s.set_hint(joule::lending::Hint::Single), DLB_SUCCESS; });
}
int DLB_Parallel(void) { return set_hint(nullptr, joule::lending::Hint::Enabled); }
int DLB_CallbackSet(dlb_callbacks_t which, dlb_callback_t callback, void* arg) {
  return callback_set(nullptr, which, callback, arg);
}
int DLB_CallbackGet(dlb_callbacks_t which, dlb_callback_t* callback, void** arg) {
  return callback_get(nullptr, which, callback, arg);
}

// The same for a subprocess handle (null: DLB_ERR_NOINIT, as for a finalised one).
int DLB_Enable_sp(dlb_handler_t h) { return sp(h, set_hint, joule::lending::Hint::Enabled); }
int DLB_Disable_sp(dlb_handler_t h) { return sp(h, set_hint, joule::lending::Hint::Disabled); }
int DLB_SetMaxParallelism_sp(dlb_handler_t h, int max) { return sp(h, set_max_parallelism, max); }
int DLB_UnsetMaxParallelism_sp(dlb_handler_t h) { return sp(h, set_max_parallelism, 0); }
int DLB_CallbackSet_sp(dlb_handler_t h, dlb_callbacks_t which, dlb_callback_t callback, void* arg) {
  return sp(h, callback_set, which, callback, arg);
}
int DLB_CallbackGet_sp(dlb_handler_t h, dlb_callbacks_t which, dlb_callback_t* callback,
                       void** arg) {
  return sp(h, callback_get, which, callback, arg);
}

}  // extern "C"
