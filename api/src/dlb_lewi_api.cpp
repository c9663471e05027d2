// DLB's LeWI verbs (joule/dlb.h) and their subprocess forms (dlb_sp.h): each
// verb is written once for a handle, null meaning the process (call_on).
#include <vector>

#include "dlb_internal.hpp"
#include "joule/dlb/dlb_sp.h"

namespace joule::dlb {
namespace {

using joule::lending::CpuState;
using joule::lending::Session;

// A LeWI verb: DLB_ERR_NOLEWI for the process once DLB_ARGS said --lewi=no
// (subprocess handles take no DLB_ARGS).
template <class F>
int lewi(dlb_handler_t h, F&& f, bool allowed_when_disabled = false) {
  if (!h && !dlb_args().lewi) return DLB_ERR_NOLEWI;
  return call_on(h, f, allowed_when_disabled);
}

int lend(dlb_handler_t h) {
  return lewi(h, [](Session& s) -> int { return s.loans().lend_all(false), DLB_SUCCESS; });
}
int lend_cpu(dlb_handler_t h, int cpu) {
  return lewi(h, [&](Session& s) -> int {
    return valid_cpu(s, cpu) ? simple(s.loans().lend_cpu(cpu)) : DLB_ERR_PERM;
  });
}
int lend_cpus(dlb_handler_t h, int ncpus) {
  return lewi(h, [&](Session& s) -> int {
    return s.loans().give_back(ncpus, nullptr) > 0 ? DLB_SUCCESS : DLB_NOUPDT;
  });
}

int reclaim(dlb_handler_t h) {
  return lewi(h, [](Session& s) -> int {
    int rc = DLB_NOUPDT;
    for (int c : s.loans().owned_cpus()) {
      const int r = after_acquire(s, c, s.loans().reclaim_cpu(c));
      if (r >= 0 && r < rc) rc = r;
    }
    return rc;
  });
}
int reclaim_cpu(dlb_handler_t h, int cpu) {
  return lewi(h, [&](Session& s) -> int {
    return valid_cpu(s, cpu) ? after_acquire(s, cpu, s.loans().reclaim_cpu(cpu)) : DLB_ERR_PERM;
  });
}
int reclaim_cpus(dlb_handler_t h, int ncpus) {
  return lewi(h, [&](Session& s) -> int {
    int rc = DLB_NOUPDT, done = 0;
    for (int c : s.loans().owned_cpus()) {
      if (done >= ncpus) break;
      const CpuState st = s.table().load(c).state;
      if (st != CpuState::Idle && st != CpuState::Borrowed) continue;
      const int r = after_acquire(s, c, s.loans().reclaim_cpu(c));
      done += r == DLB_SUCCESS || r == DLB_NOTED;
      if (r >= 0 && r < rc) rc = r;
    }
    return rc;
  });
}

int acquire_cpu(dlb_handler_t h, int cpu) {
  return lewi(h, [&](Session& s) -> int {
    return valid_cpu(s, cpu) ? after_acquire(s, cpu, s.loans().acquire_cpu(cpu)) : DLB_ERR_PERM;
  });
}
// Up to ncpus (DLB_MAX_CPUS: all it can get), by acquiring or by borrowing.
int take_cpus(dlb_handler_t h, int ncpus, bool acquire) {
  return lewi(h, [&](Session& s) -> int {
    if (ncpus == DLB_DELETE_REQUESTS) {  // only async mode queues requests
      async_request(s, ncpus, 0);
      return DLB_NOUPDT;
    }
    const int want = ncpus == DLB_MAX_CPUS ? s.table().ncpus() : ncpus;
    std::vector<int> got;
    if (acquire)
      s.acquire(want, got);
    else
      s.loans().borrow_up_to(want, &got);
    enable_cpus(s, got);
    const bool stands = async_request(s, ncpus, int(got.size()));  // --mode=async
    if (got.empty()) return stands ? DLB_NOTED : DLB_NOUPDT;
    return DLB_SUCCESS;
  });
}
int borrow_cpu(dlb_handler_t h, int cpu) {
  return lewi(h, [&](Session& s) -> int {
    return valid_cpu(s, cpu) ? after_acquire(s, cpu, s.loans().borrow_cpu(cpu)) : DLB_ERR_PERM;
  });
}

int return_all(dlb_handler_t h) {
  return lewi(
      h, [](Session& s) -> int { return s.loans().return_all() > 0 ? DLB_SUCCESS : DLB_NOUPDT; },
      true);
}
int return_cpu(dlb_handler_t h, int cpu) {
  return lewi(
      h,
      [&](Session& s) -> int {
        return valid_cpu(s, cpu) ? simple(s.loans().return_cpu(cpu)) : DLB_ERR_PERM;
      },
      true);
}
int check_cpu(dlb_handler_t h, int cpu) {
  return lewi(
      h,
      [&](Session& s) -> int {
        if (!valid_cpu(s, cpu)) return DLB_ERR_PERM;
        const auto w = s.table().load(cpu);
        if (w.owner != s.pid() && w.guest != s.pid()) return DLB_ERR_PERM;
        return runs_on(w, s.pid()) && w.state != CpuState::Claimed ? DLB_SUCCESS : DLB_NOUPDT;
      },
      true);
}

}  // namespace
}  // namespace joule::dlb

using namespace joule::dlb;

extern "C" {

int DLB_Lend(void) { return lend(nullptr); }
int DLB_LendCpu(int cpuid) { return lend_cpu(nullptr, cpuid); }
int DLB_LendCpus(int ncpus) { return lend_cpus(nullptr, ncpus); }
int DLB_Reclaim(void) { return reclaim(nullptr); }
int DLB_ReclaimCpu(int cpuid) { return reclaim_cpu(nullptr, cpuid); }
int DLB_ReclaimCpus(int ncpus) { return reclaim_cpus(nullptr, ncpus); }
int DLB_AcquireCpu(int cpuid) { return acquire_cpu(nullptr, cpuid); }
int DLB_AcquireCpus(int ncpus) { return take_cpus(nullptr, ncpus, true); }
int DLB_Borrow(void) { return take_cpus(nullptr, DLB_MAX_CPUS, false); }
int DLB_BorrowCpu(int cpuid) { return borrow_cpu(nullptr, cpuid); }
int DLB_BorrowCpus(int ncpus) { return take_cpus(nullptr, ncpus, false); }
int DLB_Return(void) { return return_all(nullptr); }
int DLB_ReturnCpu(int cpuid) { return return_cpu(nullptr, cpuid); }
int DLB_CheckCpuAvailability(int cpuid) { return check_cpu(nullptr, cpuid); }

// Subprocess handles: a null one is DLB_ERR_NOINIT, as a finalised one.
int DLB_Lend_sp(dlb_handler_t h) { return sp(h, lend); }
int DLB_LendCpu_sp(dlb_handler_t h, int cpuid) { return sp(h, lend_cpu, cpuid); }
int DLB_LendCpus_sp(dlb_handler_t h, int ncpus) { return sp(h, lend_cpus, ncpus); }
int DLB_Reclaim_sp(dlb_handler_t h) { return sp(h, reclaim); }
int DLB_ReclaimCpu_sp(dlb_handler_t h, int cpuid) { return sp(h, reclaim_cpu, cpuid); }
int DLB_ReclaimCpus_sp(dlb_handler_t h, int ncpus) { return sp(h, reclaim_cpus, ncpus); }
int DLB_AcquireCpu_sp(dlb_handler_t h, int cpuid) { return sp(h, acquire_cpu, cpuid); }
int DLB_AcquireCpus_sp(dlb_handler_t h, int ncpus) { return sp(h, take_cpus, ncpus, true); }
int DLB_Borrow_sp(dlb_handler_t h) { return sp(h, take_cpus, DLB_MAX_CPUS, false); }
int DLB_BorrowCpu_sp(dlb_handler_t h, int cpuid) { return sp(h, borrow_cpu, cpuid); }
int DLB_BorrowCpus_sp(dlb_handler_t h, int ncpus) { return sp(h, take_cpus, ncpus, false); }
int DLB_Return_sp(dlb_handler_t h) { return sp(h, return_all); }
int DLB_ReturnCpu_sp(dlb_handler_t h, int cpuid) { return sp(h, return_cpu, cpuid); }
int DLB_CheckCpuAvailability_sp(dlb_handler_t h, int cpuid) { return sp(h, check_cpu, cpuid); }

}  // extern "C"
