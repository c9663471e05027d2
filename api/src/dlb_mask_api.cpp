// DLB's mask verbs (joule/dlb.h) and their subprocess forms (dlb_sp.h): a
// single-CPU verb applied to the CPUs of a mask, and the *CpusInMask forms
// that take up to n of them. A null handle is the process (call_on).
#include <sched.h>

#include <vector>

#include "dlb_internal.hpp"
#include "joule/dlb/dlb_sp.h"

namespace joule::dlb {
namespace {

using joule::lending::Session;

// Applies a single-CPU verb to every CPU of a mask; the best result wins.
template <class Verb>
int each(dlb_handler_t h, const_dlb_cpu_set_t mask, Verb verb) {
  return call_on(h, [&](Session& s) -> int {
    int rc = DLB_NOUPDT;
    for (int c : from_mask(mask)) {
      if (!valid_cpu(s, c)) return DLB_ERR_PERM;
      const int r = verb(s, c);
      if (r < 0) return r;
      if (r < rc) rc = r;  // SUCCESS (0) < NOTED (1) < NOUPDT (2)
    }
    return rc;
  });
}

// DLB's *CpusInMask verbs: up to ncpus (DLB_MAX_CPUS: no limit) of the CPUs
// of mask that this process does not run on yet, lowest first.
template <class Verb>
int up_to_in_mask(dlb_handler_t h, int ncpus, const_dlb_cpu_set_t mask, Verb verb) {
  if (ncpus == DLB_DELETE_REQUESTS) return DLB_NOUPDT;
  return call_on(h, [&](Session& s) -> int {
    const int want = ncpus == DLB_MAX_CPUS ? s.table().ncpus() : ncpus;
    int rc = DLB_NOUPDT, done = 0;
    for (int c : from_mask(mask)) {
      if (done >= want) break;
      if (!valid_cpu(s, c)) return DLB_ERR_PERM;
      if (runs_on(s.table().load(c), s.pid())) continue;
      const int r = after_acquire(s, c, verb(s, c));
      if (r == DLB_ERR_PERM) continue;  // someone else's busy CPU: try the next
      done += r == DLB_SUCCESS || r == DLB_NOTED;
      if (r >= 0 && r < rc) rc = r;
    }
    return rc;
  });
}

int lend_mask(dlb_handler_t h, const_dlb_cpu_set_t mask) {
  return each(h, mask, [](Session& s, int c) -> int { return simple(s.loans().lend_cpu(c)); });
}
int reclaim_mask(dlb_handler_t h, const_dlb_cpu_set_t mask) {
  return each(h, mask, [](Session& s, int c) -> int {
    return after_acquire(s, c, s.loans().reclaim_cpu(c));
  });
}
int acquire_mask(dlb_handler_t h, const_dlb_cpu_set_t mask) {
  return each(h, mask, [](Session& s, int c) -> int {
    return after_acquire(s, c, s.loans().acquire_cpu(c));
  });
}
int acquire_in_mask(dlb_handler_t h, int ncpus, const_dlb_cpu_set_t mask) {
  return up_to_in_mask(h, ncpus, mask, [](Session& s, int c) { return s.loans().acquire_cpu(c); });
}
int borrow_mask(dlb_handler_t h, const_dlb_cpu_set_t mask) {
  return each(h, mask, [](Session& s, int c) -> int {
    return after_acquire(s, c, s.loans().borrow_cpu(c));
  });
}
int borrow_in_mask(dlb_handler_t h, int ncpus, const_dlb_cpu_set_t mask) {
  return up_to_in_mask(h, ncpus, mask, [](Session& s, int c) { return s.loans().borrow_cpu(c); });
}
int return_mask(dlb_handler_t h, const_dlb_cpu_set_t mask) {
  return each(h, mask, [](Session& s, int c) -> int { return simple(s.loans().return_cpu(c)); });
}

}  // namespace
}  // namespace joule::dlb

using namespace joule::dlb;

extern "C" {

int DLB_LendCpuMask(const_dlb_cpu_set_t mask) { return lend_mask(nullptr, mask); }
int DLB_ReclaimCpuMask(const_dlb_cpu_set_t mask) { return reclaim_mask(nullptr, mask); }
int DLB_AcquireCpuMask(const_dlb_cpu_set_t mask) { return acquire_mask(nullptr, mask); }
int DLB_AcquireCpusInMask(int ncpus, const_dlb_cpu_set_t mask) {
  return acquire_in_mask(nullptr, ncpus, mask);
}
int DLB_BorrowCpuMask(const_dlb_cpu_set_t mask) { return borrow_mask(nullptr, mask); }
int DLB_BorrowCpusInMask(int ncpus, const_dlb_cpu_set_t mask) {
  return borrow_in_mask(nullptr, ncpus, mask);
}
int DLB_ReturnCpuMask(const_dlb_cpu_set_t mask) { return return_mask(nullptr, mask); }

int DLB_LendCpuMask_sp(dlb_handler_t h, const_dlb_cpu_set_t mask) { return sp(h, lend_mask, mask); }
int DLB_ReclaimCpuMask_sp(dlb_handler_t h, const_dlb_cpu_set_t mask) {
  return sp(h, reclaim_mask, mask);
}
int DLB_AcquireCpuMask_sp(dlb_handler_t h, const_dlb_cpu_set_t mask) {
  return sp(h, acquire_mask, mask);
}
int DLB_AcquireCpusInMask_sp(dlb_handler_t h, int ncpus, const_dlb_cpu_set_t mask) {
  return sp(h, acquire_in_mask, ncpus, mask);
}
int DLB_BorrowCpuMask_sp(dlb_handler_t h, const_dlb_cpu_set_t mask) {
  return sp(h, borrow_mask, mask);
}
int DLB_BorrowCpusInMask_sp(dlb_handler_t h, int ncpus, const_dlb_cpu_set_t mask) {
  return sp(h, borrow_in_mask, ncpus, mask);
}
int DLB_ReturnCpuMask_sp(dlb_handler_t h, const_dlb_cpu_set_t mask) {
  return sp(h, return_mask, mask);
}

}  // extern "C"
