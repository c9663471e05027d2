// The task-reduction entry points: taskgroup task_reduction, in_reduction's
// remap, parallel reduction(task, ...) and the worksharing ones' end (the
// descriptor and the blocks: reduction.hpp).
#include "joule/team.h"
#include "reduction.hpp"
#include "team.hpp"

namespace joule::omp {

// ws_enter's set-up of a loop or sections with reduction(task, ...).
Reduction* make_workshare_reduction(std::uintptr_t* desc) {
  Team* t = current_team();
  Reduction* r = reduction_create(desc, ReductionKind::kWorkshare, t, t->n);
  r->refs.store(t->n, std::memory_order_relaxed);
  return r;
}

// After ws_enter: the first member made the blocks; each member's own
// descriptor gets them and becomes its innermost one. The compiled code
// initialises the member's block after this call, unconditionally, so no
// task may add to the blocks before every member is in: they meet here.
// Meanwhile they keep their seats (a borrower of one could run a task of
// this construct between the meeting and that member's initialisation).
void attach_workshare_reduction(std::uintptr_t* desc) {
  ThreadState& s = self();
  Reduction* r = s.ws->red;
  reduction_attach(desc, r);
  desc[4] = reinterpret_cast<std::uintptr_t>(s.red);
  s.red = desc;
  s.ws_red = r;
  Team* t = current_team();
  if (r->attached.fetch_add(1, std::memory_order_seq_cst) + 1 == t->n) {
    wake_team(t);
    return;
  }
  auto all_in = [](void* p) {
    auto* red = static_cast<Reduction*>(p);
    return int(red->attached.load(std::memory_order_acquire) == red->team->n);
  };
  for (int i = 0; i < 2000; ++i)
    if (all_in(r)) return;
  joule_wait_until(all_in, r);
}

}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

JOULE_EXPORT void GOMP_taskgroup_reduction_register(std::uintptr_t* desc) {
  ThreadState& s = self();
  Team* t = current_team();
  desc[4] = reinterpret_cast<std::uintptr_t>(s.red);
  reduction_create(desc, ReductionKind::kTaskgroup, t, t->n);
  s.red = desc;
}

// After the fold. A taskgroup's or taskloop's descriptor was the innermost
// one; a parallel region's was its members' only (the master is outside).
JOULE_EXPORT void GOMP_taskgroup_reduction_unregister(std::uintptr_t* desc) {
  ThreadState& s = self();
  if (s.red == desc) s.red = reinterpret_cast<std::uintptr_t*>(desc[4]);
  reduction_free(reduction_of(desc));
}

JOULE_EXPORT void GOMP_task_reduction_remap(std::size_t cnt, std::size_t cntorig, void** ptrs) {
  reduction_remap(cnt, cntorig, ptrs);
}

// data's first word is the descriptor; the return value is how many blocks
// the compiled code folds: the team's size.
JOULE_EXPORT unsigned GOMP_parallel_reductions(void (*fn)(void*), void* data, unsigned num_threads,
                                               unsigned /*flags*/) {
  std::uintptr_t* desc = *static_cast<std::uintptr_t**>(data);
  const int n = run_parallel(fn, data, num_threads, desc);
  reduction_of(desc)->team = nullptr;  // ended, perhaps freed (its next region resets it)
  return unsigned(n);
}

// scope: without reductions nothing; with reduction(task, ...) the members
// share blocks as for a loop (a construct slot says which member makes
// them), then GCC's code ends it with GOMP_barrier, thread 0's fold and
// GOMP_workshare_task_reduction_unregister.
JOULE_EXPORT void GOMP_scope_start(std::uintptr_t* reductions) {
  if (!reductions) return;
  ws_enter([&](WorkShare& w) { w.red = make_workshare_reduction(reductions); });
  attach_workshare_reduction(reductions);
  ws_leave();
}

// Every member calls it after the construct's closing barrier (thread 0
// after its fold); the last one frees the blocks.
JOULE_EXPORT void GOMP_workshare_task_reduction_unregister(bool /*cancelled*/) {
  ThreadState& s = self();
  Reduction* r = s.ws_red;
  if (!r) return;
  // This member's descriptor is the innermost one; its outer link is s.red's.
  s.red = reinterpret_cast<std::uintptr_t*>(s.red[4]);
  s.ws_red = nullptr;
  if (r->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) reduction_free(r);
}

}  // extern "C"
