// DLB-compatible entry points (joule/dlb.h) over the lending session:
// management, hints, callbacks and the LeWI verbs (masks: dlb_mask_api.cpp;
// DROM: dlb_drom_api.cpp).
// Polling mode: callbacks run inside DLB_* calls, on the caller's thread.
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "config.hpp"
#include "dlb_internal.hpp"
#include "lending_settings.hpp"
#include "log.hpp"

namespace joule::dlb {
namespace {

using joule::lending::CpuState;
using joule::lending::Outcome;
using joule::lending::Session;
using CpuCallback = void (*)(int, void*);
using MaskCallback = void (*)(const_dlb_cpu_set_t, void*);

struct Callback {
  dlb_callback_t fn = nullptr;
  void* arg = nullptr;
};

Callback g_callbacks[7];
std::set<int> g_pending;  // reclaimed CPUs still run by their borrower

void cpu_callback(dlb_callbacks_t which, int cpu) {
  const Callback cb = g_callbacks[which];
  if (cb.fn) reinterpret_cast<CpuCallback>(cb.fn)(cpu, cb.arg);
}

}  // namespace

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
  for (auto it = g_pending.begin(); it != g_pending.end();) {
    const auto w = s.table().load(*it);
    if (w.owner != s.pid()) {
      it = g_pending.erase(it);
    } else if (runs_on(w, s.pid()) && w.state != CpuState::Claimed) {
      cpu_callback(dlb_callback_enable_cpu, *it);
      it = g_pending.erase(it);
    } else {
      ++it;
    }
  }
  if (!g_callbacks[dlb_callback_disable_cpu].fn) return;
  for (int c = 0; c < s.table().ncpus(); ++c) {
    const auto w = s.table().load(c);
    if (w.state != CpuState::Claimed || w.guest != s.pid()) continue;
    cpu_callback(dlb_callback_disable_cpu, c);
    s.return_cpu(c);
  }
}

bool call_mask_callback(const std::vector<int>& cpus) {
  const Callback cb = g_callbacks[dlb_callback_set_process_mask];
  if (!cb.fn) return false;
  cpu_set_t set;
  to_mask(cpus, &set);
  reinterpret_cast<MaskCallback>(cb.fn)(&set, cb.arg);
  return true;
}

int after_acquire(Session& s, int cpu, Outcome o) {
  switch (o) {
    case Outcome::Done:
      cpu_callback(dlb_callback_enable_cpu, cpu);
      return DLB_SUCCESS;
    case Outcome::Pending:
      g_pending.insert(cpu);
      return DLB_NOTED;
    case Outcome::NoChange:
      return DLB_NOUPDT;
    case Outcome::Illegal:
      break;
  }
  (void)s;
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

int DLB_Init(int /*ncpus*/, const_dlb_cpu_set_t mask, const char* /*dlb_args*/) {
  std::lock_guard guard(api_mutex());
  if (initialised()) return DLB_ERR_INIT;
  std::string why;
  std::string mode = "node";
  try {
    using joule::lending::LendingSettings;
    if (joule::core::Config::load({}).get<LendingSettings>().mode ==
        joule::lending::LewiMode::local)
      mode = "local";
  } catch (const std::exception&) {
  }
  if (joule::lending::start_standalone(mode, from_mask(mask), why) !=
      joule::lending::StartResult::Ok) {
    joule::core::log_error("DLB_Init: " + why);
    return why.find("owned by") != std::string::npos ? DLB_ERR_PERM : DLB_ERR_NOSHMEM;
  }
  initialised() = true;
  talp_init();
  barrier_init();  // a failure is logged; DLB_Barrier then says DLB_ERR_PERM
  return DLB_SUCCESS;
}

int DLB_Finalize(void) {
  std::lock_guard guard(api_mutex());
  if (!initialised()) return DLB_ERR_NOINIT;
  initialised() = false;
  barrier_finalize();
  talp_finalize();
  g_pending.clear();
  for (auto& cb : g_callbacks) cb = Callback{};
  joule::lending::stop_standalone();
  return DLB_SUCCESS;
}

int DLB_Enable(void) {
  return call(
      [](Session& s) -> int { return s.set_hint(joule::lending::Hint::Enabled), DLB_SUCCESS; },
      true);
}
int DLB_Disable(void) {
  return call(
      [](Session& s) -> int {
        s.set_hint(joule::lending::Hint::Disabled);
        return DLB_SUCCESS;
      },
      true);
}
int DLB_SetMaxParallelism(int max) {
  return call([&](Session& s) -> int { return s.set_max_parallelism(max), DLB_SUCCESS; });
}
int DLB_UnsetMaxParallelism(void) {
  return call([](Session& s) -> int { return s.set_max_parallelism(0), DLB_SUCCESS; });
}
int DLB_Single(void) {
  return call(
      [](Session& s) -> int { return s.set_hint(joule::lending::Hint::Single), DLB_SUCCESS; });
}
int DLB_Parallel(void) {
  return call(
      [](Session& s) -> int { return s.set_hint(joule::lending::Hint::Enabled), DLB_SUCCESS; },
      true);
}

int DLB_CallbackSet(dlb_callbacks_t which, dlb_callback_t callback, void* arg) {
  if (int(which) < 0 || int(which) > int(dlb_callback_disable_cpu)) return DLB_ERR_NOCBK;
  std::lock_guard guard(api_mutex());
  if (!initialised()) return DLB_ERR_NOINIT;
  g_callbacks[which] = {callback, arg};
  return DLB_SUCCESS;
}

int DLB_CallbackGet(dlb_callbacks_t which, dlb_callback_t* callback, void** arg) {
  if (int(which) < 0 || int(which) > int(dlb_callback_disable_cpu)) return DLB_ERR_NOCBK;
  std::lock_guard guard(api_mutex());
  if (!initialised()) return DLB_ERR_NOINIT;
  if (callback) *callback = g_callbacks[which].fn;
  if (arg) *arg = g_callbacks[which].arg;
  return g_callbacks[which].fn ? DLB_SUCCESS : DLB_ERR_NOCBK;
}

int DLB_Lend(void) {
  return call([](Session& s) -> int { return s.lend_all(false), DLB_SUCCESS; });
}
int DLB_LendCpu(int cpuid) {
  return call([&](Session& s) -> int {
    return valid_cpu(s, cpuid) ? simple(s.lend_cpu(cpuid)) : DLB_ERR_PERM;
  });
}
int DLB_LendCpus(int ncpus) {
  return call([&](Session& s) -> int {
    const int n = s.give_back(ncpus, nullptr);
    return n > 0 ? DLB_SUCCESS : DLB_NOUPDT;
  });
}
int DLB_Reclaim(void) {
  return call([](Session& s) -> int {
    int rc = DLB_NOUPDT;
    for (int c : s.owned_cpus()) {
      const int r = after_acquire(s, c, s.reclaim_cpu(c));
      if (r >= 0 && r < rc) rc = r;
    }
    return rc;
  });
}
int DLB_ReclaimCpu(int cpuid) {
  return call([&](Session& s) -> int {
    return valid_cpu(s, cpuid) ? after_acquire(s, cpuid, s.reclaim_cpu(cpuid)) : DLB_ERR_PERM;
  });
}
int DLB_ReclaimCpus(int ncpus) {
  return call([&](Session& s) -> int {
    int rc = DLB_NOUPDT, done = 0;
    for (int c : s.owned_cpus()) {
      if (done >= ncpus) break;
      const CpuState st = s.table().load(c).state;
      if (st != CpuState::Idle && st != CpuState::Borrowed) continue;
      const int r = after_acquire(s, c, s.reclaim_cpu(c));
      done += r == DLB_SUCCESS || r == DLB_NOTED;
      if (r >= 0 && r < rc) rc = r;
    }
    return rc;
  });
}
int DLB_AcquireCpu(int cpuid) {
  return call([&](Session& s) -> int {
    return valid_cpu(s, cpuid) ? after_acquire(s, cpuid, s.acquire_cpu(cpuid)) : DLB_ERR_PERM;
  });
}
int DLB_AcquireCpus(int ncpus) {
  if (ncpus == DLB_DELETE_REQUESTS) return DLB_NOUPDT;  // joule queues no requests
  return call([&](Session& s) -> int {
    if (ncpus == DLB_MAX_CPUS) ncpus = s.table().ncpus();
    std::vector<int> got;
    s.acquire(ncpus, got);
    for (int c : got) cpu_callback(dlb_callback_enable_cpu, c);
    return got.empty() ? DLB_NOUPDT : DLB_SUCCESS;
  });
}
int DLB_Borrow(void) {
  return call([](Session& s) -> int {
    std::vector<int> got;
    s.borrow_up_to(s.table().ncpus(), &got);
    for (int c : got) cpu_callback(dlb_callback_enable_cpu, c);
    return got.empty() ? DLB_NOUPDT : DLB_SUCCESS;
  });
}
int DLB_BorrowCpu(int cpuid) {
  return call([&](Session& s) -> int {
    return valid_cpu(s, cpuid) ? after_acquire(s, cpuid, s.borrow_cpu(cpuid)) : DLB_ERR_PERM;
  });
}
int DLB_BorrowCpus(int ncpus) {
  if (ncpus == DLB_DELETE_REQUESTS) return DLB_NOUPDT;
  return call([&](Session& s) -> int {
    if (ncpus == DLB_MAX_CPUS) ncpus = s.table().ncpus();
    std::vector<int> got;
    s.borrow_up_to(ncpus, &got);
    for (int c : got) cpu_callback(dlb_callback_enable_cpu, c);
    return got.empty() ? DLB_NOUPDT : DLB_SUCCESS;
  });
}
int DLB_Return(void) {
  return call([](Session& s) -> int { return s.return_all() > 0 ? DLB_SUCCESS : DLB_NOUPDT; },
              true);
}
int DLB_ReturnCpu(int cpuid) {
  return call(
      [&](Session& s) -> int {
        return valid_cpu(s, cpuid) ? simple(s.return_cpu(cpuid)) : DLB_ERR_PERM;
      },
      true);
}
int DLB_CheckCpuAvailability(int cpuid) {
  return call(
      [&](Session& s) -> int {
        if (!valid_cpu(s, cpuid)) return DLB_ERR_PERM;
        const auto w = s.table().load(cpuid);
        if (w.owner != s.pid() && w.guest != s.pid()) return DLB_ERR_PERM;
        return runs_on(w, s.pid()) && w.state != CpuState::Claimed ? DLB_SUCCESS : DLB_NOUPDT;
      },
      true);
}

}  // extern "C"
