// Barriers, critical sections, the atomic fallback, single (with
// copyprivate), ordered and cancellation as GCC calls them.
#include "joule/omp/omp.h"
#include "joule/team.h"
#include "ompt.hpp"
#include "task.hpp"
#include "team.hpp"

namespace joule::omp {

// A member first waits for the explicit tasks it created (their descendants
// complete before them), so when all have arrived the team's tasks are done.
// (The master of a pre-4.9 region has no joule task: it counts its tasks
// as an inline task does, see parallel.cpp.)
namespace {

void barrier_wait() {
  wait_children();
  Team* t = current_team();
  if (t->n == 1) return;
  const std::uint32_t gen = t->barrier_gen.load(std::memory_order_acquire);
  if (t->arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == t->n) {
    t->arrived.store(0, std::memory_order_relaxed);
    t->barrier_gen.store(gen + 1, std::memory_order_seq_cst);
    wake_team(t);
    return;
  }
  team_wait(t, [&] { return t->barrier_gen.load(std::memory_order_acquire) != gen; });
}

[[gnu::noinline]] void barrier_reported(ompt::SyncKind kind) {
  ompt::sync_begin(kind);
  barrier_wait();
  ompt::sync_end(kind);
}

}  // namespace

void barrier() {
  if (ompt::on()) return barrier_reported(ompt::kBarrierImplicitWorkshare);
  barrier_wait();
}

void barrier_explicit() {
  if (ompt::on()) return barrier_reported(ompt::kBarrierExplicit);
  barrier_wait();
}

}  // namespace joule::omp

using namespace joule::omp;

namespace {

omp_lock_t g_critical = {{0}};
omp_lock_t g_atomic = {{0}};

// Critical and atomic sections are locks; a tool sees them as what they are.
void set_as(ompt::MutexKind kind, omp_lock_t* l) {
  if (ompt::on()) ompt::next_mutex_kind(kind);
  omp_set_lock(l);
}

void unset_as(ompt::MutexKind kind, omp_lock_t* l) {
  if (ompt::on()) ompt::next_mutex_kind(kind);
  omp_unset_lock(l);
}

}  // namespace

extern "C" {

JOULE_EXPORT void GOMP_barrier(void) { barrier_explicit(); }

// Cancellation is off (OMP_CANCELLATION is not supported): nothing is ever
// cancelled, which the specification allows.
JOULE_EXPORT bool GOMP_barrier_cancel(void) {
  barrier();
  return false;
}
JOULE_EXPORT bool GOMP_cancel(int, bool) { return false; }
JOULE_EXPORT bool GOMP_cancellation_point(int) { return false; }

JOULE_EXPORT void GOMP_critical_start(void) { set_as(ompt::kMutexCritical, &g_critical); }
JOULE_EXPORT void GOMP_critical_end(void) { unset_as(ompt::kMutexCritical, &g_critical); }

// *pptr is a zero-initialised pointer-sized common symbol per name: its
// first 4 bytes serve as the lock word.
JOULE_EXPORT void GOMP_critical_name_start(void** pptr) {
  set_as(ompt::kMutexCritical, reinterpret_cast<omp_lock_t*>(pptr));
}
JOULE_EXPORT void GOMP_critical_name_end(void** pptr) {
  unset_as(ompt::kMutexCritical, reinterpret_cast<omp_lock_t*>(pptr));
}

JOULE_EXPORT void GOMP_atomic_start(void) { set_as(ompt::kMutexAtomic, &g_atomic); }
JOULE_EXPORT void GOMP_atomic_end(void) { unset_as(ompt::kMutexAtomic, &g_atomic); }

JOULE_EXPORT bool GOMP_single_start(void) {
  if (current_team()->n == 1) return true;
  WorkShare* w = ws_enter([](WorkShare&) {});
  const bool first = w->next.fetch_add(1, std::memory_order_acq_rel) == 0;
  ws_leave();
  return first;
}

// The winner gets NULL, runs the block and publishes its data with
// GOMP_single_copy_end; the others wait for that data. GCC puts a barrier
// after, so the winner's data outlives the copies.
JOULE_EXPORT void* GOMP_single_copy_start(void) {
  Team* t = current_team();
  if (t->n == 1) return nullptr;
  WorkShare* w = ws_enter([](WorkShare&) {});
  if (w->next.fetch_add(1, std::memory_order_acq_rel) == 0) return nullptr;
  if (ompt::on()) ompt::sync_begin(ompt::kBarrierImplementation);
  team_wait(t, [&] { return w->copied.load(std::memory_order_acquire); });
  if (ompt::on()) ompt::sync_end(ompt::kBarrierImplementation);
  void* data = w->copy.load(std::memory_order_relaxed);
  ws_leave();
  return data;
}

JOULE_EXPORT void GOMP_single_copy_end(void* data) {
  if (current_team()->n == 1) return;
  WorkShare* w = self().ws;
  ompt::handover_publish();
  w->copy.store(data, std::memory_order_relaxed);
  w->copied.store(true, std::memory_order_seq_cst);
  wake_team(current_team());
  ws_leave();
}

// Iterations of an ordered loop pass the ordered region in turn: each
// thread knows the iteration it is at (set when it took its chunk).
JOULE_EXPORT void GOMP_ordered_start(void) {
  ThreadState& s = self();
  if (current_team()->n == 1 || !s.ws) return;
  WorkShare* w = s.ws;
  const std::uint64_t mine = s.ordered_iter;
  team_wait(current_team(),
            [&] { return w->ordered_next.load(std::memory_order_acquire) == mine; });
  if (ompt::on()) ompt::mutex_acquired(ompt::kMutexOrdered, &w->ordered_next);
}

JOULE_EXPORT void GOMP_ordered_end(void) {
  ThreadState& s = self();
  if (current_team()->n == 1 || !s.ws) return;
  if (ompt::on()) ompt::mutex_released(ompt::kMutexOrdered, &s.ws->ordered_next);
  s.ordered_iter++;
  s.ws->ordered_next.store(s.ordered_iter, std::memory_order_seq_cst);
  wake_team(current_team());
}

}  // extern "C"
