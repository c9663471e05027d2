// Sections: section k of `count` is handed out once (numbers 1..count; 0
// means none is left), in order, to whichever thread asks next.
#include "ompt.hpp"
#include "reduction.hpp"
#include "team.hpp"

using namespace joule::omp;

namespace {

unsigned next_section() {
  WorkShare* w = self().ws;
  const std::uint64_t k = w->next.fetch_add(1, std::memory_order_relaxed);
  return k < w->count ? unsigned(k + 1) : 0;
}

unsigned start_sections(unsigned count, std::uintptr_t* reductions = nullptr) {
  if (ompt::on()) ompt::work_open(ompt::kWorkSections, count);
  ws_enter([&](WorkShare& w) {
    w.sched = kDynamic;
    w.count = count;
    w.chunk = 1;
    if (reductions) w.red = make_workshare_reduction(reductions);
  });
  if (reductions) attach_workshare_reduction(reductions);
  return next_section();
}

struct SectionsRegion {
  void (*fn)(void*);
  void* data;
  unsigned count;
};

void enter_sections(unsigned count) {
  if (ompt::on()) ompt::work_open(ompt::kWorkSections, count);
  ws_enter([&](WorkShare& w) {
    w.sched = kDynamic;
    w.count = count;
    w.chunk = 1;
  });
}

// Combined parallel sections: members enter the construct before the body.
void sections_member(void* p) {
  auto* r = static_cast<SectionsRegion*>(p);
  enter_sections(r->count);
  r->fn(r->data);
}

}  // namespace

extern "C" {

JOULE_EXPORT unsigned GOMP_sections_start(unsigned count) { return start_sections(count); }

JOULE_EXPORT unsigned GOMP_sections2_start(unsigned count, std::uintptr_t* reductions, void** mem) {
  const unsigned first = start_sections(count, reductions);
  if (mem) share_mem(mem);
  return first;
}

JOULE_EXPORT unsigned GOMP_sections_next(void) { return next_section(); }

JOULE_EXPORT void GOMP_sections_end(void) {
  if (ompt::on()) ompt::work_close();
  ws_leave();
  barrier();
}
JOULE_EXPORT void GOMP_sections_end_nowait(void) {
  if (ompt::on()) ompt::work_close();
  ws_leave();
}
JOULE_EXPORT bool GOMP_sections_end_cancel(void) {
  GOMP_sections_end();
  return false;
}

JOULE_EXPORT void GOMP_parallel_sections(void (*fn)(void*), void* data, unsigned num_threads,
                                         unsigned count, unsigned /*flags*/) {
  SectionsRegion r{fn, data, count};
  run_parallel(sections_member, &r, num_threads);
}

// Pre-4.9: the caller runs the body as the master, then GOMP_parallel_end.
JOULE_EXPORT void GOMP_parallel_sections_start(void (*fn)(void*), void* data, unsigned num_threads,
                                               unsigned count) {
  auto* r = new SectionsRegion{fn, data, count};
  start_legacy_region(
      sections_member, r, [](void* p) { delete static_cast<SectionsRegion*>(p); }, num_threads);
  enter_sections(count);
}

}  // extern "C"
