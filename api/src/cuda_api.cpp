// The CUDA task API (joule/cuda.hpp, joule/cuda.h and Nanos6's
// nanos6_get_current_cuda_stream): converts its types to the card tasks
// layer's (runtime/offload/tasks) and calls it. No logic lives here.
#include <vector>

#include "card_tasks.hpp"
#include "cuda_device.hpp"
#include "gpu_devices.hpp"
#include "joule/cuda.hpp"
#include "joule/nanos6/nanos6.h"
#include "offload_copies.hpp"

namespace joule::detail {
namespace {

static_assert(int(device::cuda) == int(card_tasks::CardTarget::cuda));

cuda::CudaKernelContext& cuda_ctx(void* ctx) {
  // A CUDA task's fn gets its CudaKernelContext as the KernelContext it is.
  auto* c = dynamic_cast<cuda::CudaKernelContext*>(static_cast<offload::KernelContext*>(ctx));
  if (!c) throw error(JOULE_ERR_STATE, "joule: a cuda_context used outside its CUDA task's body");
  return *c;
}

}  // namespace

void* cuda_map(void* ctx, const void* host) { return cuda_ctx(ctx).map(host); }
CUstream_st* cuda_stream(void* ctx) { return static_cast<CUstream_st*>(cuda_ctx(ctx).stream()); }
int cuda_device(void* ctx) { return cuda_ctx(ctx).device(); }

void cuda_run(int device_num, cuda_body_fn fn, void* body, const dep* deps, std::size_t ndeps,
              bool copy_deps, const copy_region* copies, std::size_t ncopies) {
  const std::vector<card_tasks::CopyRegion> c = copies_of(copies, ncopies);
  card_tasks::run_card_task(
      {{int(device::cuda), {deps, ndeps}, copy_deps, c, device_num}, fn, body, 0, 1});
}

void* cuda_enter(int device_num, const dep* deps, std::size_t ndeps, bool copy_deps,
                 const copy_region* copies, std::size_t ncopies) {
  const std::vector<card_tasks::CopyRegion> c = copies_of(copies, ncopies);
  return card_tasks::enter_card_spawn({int(device::cuda), {deps, ndeps}, copy_deps, c, device_num});
}

}  // namespace joule::detail

namespace joule {

std::vector<cuda_device_status> cuda_devices(std::string* why_none) {
  std::string why;
  card_tasks::open_gpus(&why);
  if (why_none) *why_none = why;
  std::vector<cuda_device_status> out;
  for (const card_tasks::GpuStatus& g : card_tasks::gpu_statuses()) {
    cuda_device_status s;
    s.index = g.info.index;
    s.name = g.info.name;
    s.pci_bus_id = g.info.pci_bus_id;
    s.total_bytes = g.info.total_bytes;
    s.free_bytes = g.info.free_bytes;
    s.seconds = g.energy.seconds;
    s.joules = g.energy.joules;
    s.energy_measured = g.energy.measured;
    s.watts = g.energy.watts;
    s.sm_clock_mhz = g.sm_clock_mhz;
    s.launches = g.tasks;
    s.bytes_to_gpu = g.energy.bytes_to_card;
    s.bytes_to_host = g.energy.bytes_to_host;
    s.copies_in = g.coherence.copies_in;
    s.resident_hits = g.coherence.resident_hits;
    s.copies_back = g.coherence.copies_back;
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<int> cuda_sm_clocks(int device_num) { return card_tasks::gpu_sm_clocks(device_num); }

void set_cuda_sm_clock(int device_num, int mhz) { card_tasks::set_gpu_sm_clock(device_num, mhz); }

}  // namespace joule

extern "C" {

CUstream_st* joule_cuda_current_stream(void) {
  joule::cuda::CudaKernelContext* c = joule::cuda::current_cuda_context();
  return c ? static_cast<CUstream_st*>(c->stream()) : nullptr;
}

void* joule_cuda_current_map(const void* host) {
  joule::cuda::CudaKernelContext* c = joule::cuda::current_cuda_context();
  if (!c) return nullptr;
  try {
    return c->map(host);
  } catch (...) {  // not in one of the task's regions
    return nullptr;
  }
}

int joule_cuda_current_device(void) {
  joule::cuda::CudaKernelContext* c = joule::cuda::current_cuda_context();
  return c ? c->device() : -1;
}

int joule_cuda_device_count(void) {
  try {
    return joule::card_tasks::open_gpus(nullptr);
  } catch (...) {  // the runtime could not start: no GPU to use either
    return 0;
  }
}

CUstream_st* nanos6_get_current_cuda_stream(void) { return joule_cuda_current_stream(); }

}  // extern "C"
