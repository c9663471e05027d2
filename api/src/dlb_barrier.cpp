// DLB_Barrier and the named barriers (DLB API reference, "Barrier"): a
// barrier across the processes of the node that called DLB_Init, on a
// BarrierSegment of the node's CPU table. With DLB_BARRIER_LEWI_ON a process
// lends its CPUs (but the caller's) while it waits and reclaims them after.
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "dlb_barrier_shm.hpp"
#include "dlb_internal.hpp"
#include "log.hpp"

struct dlb_barrier_s {
  std::string name;
  dlb_barrier_flags_t flags = DLB_BARRIER_LEWI_OFF;
  std::unique_ptr<joule::dlb::BarrierSegment> segment;
};

namespace joule::dlb {
namespace {

constexpr const char* kDefaultBarrier = "default";

std::map<std::string, std::unique_ptr<dlb_barrier_s>>& barriers() {
  static std::map<std::string, std::unique_ptr<dlb_barrier_s>> all;
  return all;
}

// The barrier of that name, opened on first use. Caller holds api_mutex.
dlb_barrier_s* open_barrier(const std::string& name, dlb_barrier_flags_t flags) {
  auto& slot = barriers()[name];
  if (!slot) {
    auto b = std::make_unique<dlb_barrier_s>();
    b->name = name;
    b->flags = flags;
    b->segment = std::make_unique<BarrierSegment>(lending::configured_table_name(), name);
    slot = std::move(b);
  }
  return slot.get();
}

bool known(dlb_barrier_t* b) {
  for (const auto& [name, mine] : barriers())
    if (mine.get() == b) return true;
  return false;
}

int wait_on(dlb_barrier_t* b) {
  std::shared_ptr<lending::Session> lend;
  {
    std::lock_guard guard(api_mutex());
    if (!initialised()) return DLB_ERR_NOINIT;
    if (!known(b)) return DLB_ERR_NOENT;
    if (b->flags != DLB_BARRIER_LEWI_OFF) lend = lending::active_session();
  }
  if (lend) lend->loans().lend_all(true);
  const auto r = b->segment->wait();  // without the API lock: other threads go on
  if (lend) lend->loans().reclaim_all(nullptr);
  switch (r) {
    case BarrierSegment::Result::Done:
      return DLB_SUCCESS;
    case BarrierSegment::Result::NotAttached:
      return DLB_ERR_PERM;
    case BarrierSegment::Result::Broken:
      break;
  }
  core::log_error("DLB barrier '" + b->name + "': a participant died; this barrier failed");
  return DLB_ERR_NOPROC;
}

template <class F>
int with_barrier(dlb_barrier_t* b, F&& f) {
  std::lock_guard guard(api_mutex());
  if (!initialised()) return DLB_ERR_NOINIT;
  if (!known(b)) return DLB_ERR_NOENT;
  try {
    return f(*b->segment);
  } catch (const std::exception& e) {
    core::log_error(std::string("DLB barrier: ") + e.what());
    return DLB_ERR_NOSHMEM;
  }
}

dlb_barrier_t* default_barrier() {
  auto it = barriers().find(kDefaultBarrier);
  return it == barriers().end() ? nullptr : it->second.get();
}

}  // namespace

int barrier_init() {
  try {
    open_barrier(kDefaultBarrier, DLB_BARRIER_LEWI_OFF)->segment->attach();
    return DLB_SUCCESS;
  } catch (const std::exception& e) {
    core::log_error(std::string("DLB_Init: barrier: ") + e.what());
    return DLB_ERR_NOSHMEM;
  }
}

void barrier_finalize() { barriers().clear(); }  // each segment detaches as it closes

}  // namespace joule::dlb

using namespace joule::dlb;

extern "C" {

int DLB_Barrier(void) {
  dlb_barrier_t* b;
  {
    std::lock_guard guard(api_mutex());
    if (!initialised()) return DLB_ERR_NOINIT;
    b = default_barrier();
  }
  return wait_on(b);
}

int DLB_BarrierAttach(void) {
  dlb_barrier_t* b;
  {
    std::lock_guard guard(api_mutex());
    b = default_barrier();
  }
  return DLB_BarrierNamedAttach(b);
}

int DLB_BarrierDetach(void) {
  dlb_barrier_t* b;
  {
    std::lock_guard guard(api_mutex());
    b = default_barrier();
  }
  return DLB_BarrierNamedDetach(b);
}

dlb_barrier_t* DLB_BarrierNamedRegister(const char* barrier_name, dlb_barrier_flags_t flags) {
  if (!barrier_name || !*barrier_name) return nullptr;
  std::lock_guard guard(api_mutex());
  if (!initialised()) return nullptr;
  try {
    dlb_barrier_t* b = open_barrier(std::string("named:") + barrier_name, flags);
    b->segment->attach();
    return b;
  } catch (const std::exception& e) {
    joule::core::log_error(std::string("DLB_BarrierNamedRegister: ") + e.what());
    return nullptr;
  }
}

dlb_barrier_t* DLB_BarrierNamedGet(const char* barrier_name, dlb_barrier_flags_t flags) {
  return DLB_BarrierNamedRegister(barrier_name, flags);
}

int DLB_BarrierNamed(dlb_barrier_t* barrier) { return wait_on(barrier); }

int DLB_BarrierNamedAttach(dlb_barrier_t* barrier) {
  return with_barrier(barrier,
                      [](BarrierSegment& s) { return s.attach() ? DLB_SUCCESS : DLB_NOUPDT; });
}

int DLB_BarrierNamedDetach(dlb_barrier_t* barrier) {
  return with_barrier(barrier,
                      [](BarrierSegment& s) { return s.detach() ? DLB_SUCCESS : DLB_NOUPDT; });
}

}  // extern "C"
