// Device copies of host regions and their ordering events (cuda_residency.hpp).
#include "cuda_residency.hpp"

#include <algorithm>

namespace joule::cuda {

ResidentCopy& CudaResidency::acquire(const offload::Region& r, bool pin) {
  ResidentCopy& c = copies_[r.host];
  if (r.bytes > c.bytes) {
    CUdeviceptr grown = 0;
    const CUresult res = d_.cuMemAlloc_v2(&grown, r.bytes);
    if (res != CUDA_SUCCESS) {
      if (c.bytes == 0) copies_.erase(r.host);
      d_.check(res, "cuMemAlloc");
    }
    ++allocations_;
    if (c.ptr) {  // grown: keep what the smaller copy held
      sync(c);
      d_.check(d_.cuMemcpyDtoD_v2(grown, c.ptr, c.bytes), "cuMemcpyDtoD");
      d_.cuMemFree_v2(c.ptr);
      if (c.pinned) d_.cuMemHostUnregister(const_cast<void*>(r.host));
      c.pin_tried = c.pinned = false;
    }
    c.ptr = grown;
    c.bytes = r.bytes;
  }
  if (pin && !c.pin_tried && (r.to_card || r.to_host)) {
    c.pin_tried = true;
    // Portable: page-locked for every context, so another GPU copying the
    // same region (whose own registration is then refused) copies it
    // asynchronously too (driver API, cuMemHostRegister).
    c.pinned = d_.cuMemHostRegister_v2(const_cast<void*>(r.host), c.bytes,
                                       CU_MEMHOSTREGISTER_PORTABLE) == CUDA_SUCCESS;
  }
  return c;
}

ResidentCopy* CudaResidency::find(const void* host) {
  auto it = copies_.find(host);
  return it == copies_.end() ? nullptr : &it->second;
}

void CudaResidency::release(const void* host) {
  auto it = copies_.find(host);
  if (it == copies_.end()) return;
  sync(it->second);
  free(host, it->second);
  copies_.erase(it);
}

void CudaResidency::clear() noexcept {
  for (auto& [host, c] : copies_) {
    try {
      sync(c);
    } catch (...) {  // a failed GPU: free what can be freed
    }
    free(host, c);
  }
  copies_.clear();
}

void CudaResidency::sync(ResidentCopy& c) const {
  if (c.writer.event) d_.check(d_.cuEventSynchronize(c.writer.event.get()), "cuEventSynchronize");
  for (const StreamEvent& e : c.readers)
    d_.check(d_.cuEventSynchronize(e.event.get()), "cuEventSynchronize");
  c.writer = {};
  c.readers.clear();
}

void CudaResidency::free(const void* host, ResidentCopy& c) const noexcept {
  if (c.ptr) d_.cuMemFree_v2(c.ptr);
  if (c.pinned) d_.cuMemHostUnregister(const_cast<void*>(host));
  c = {};
}

void wait_for_copy(const CudaDriver& d, CUstream s, const offload::Region& r,
                   const ResidentCopy& c) {
  auto wait = [&](const StreamEvent& e) {
    if (e.event && e.stream != s)
      d.check(d.cuStreamWaitEvent(s, e.event.get(), 0), "cuStreamWaitEvent");
  };
  wait(c.writer);
  if ((r.access & offload::kOut) || r.to_card)
    for (const StreamEvent& e : c.readers) wait(e);
}

void note_use(const CudaDriver& d, const offload::Region& r, ResidentCopy& c,
              const StreamEvent& done) {
  if (r.access & offload::kOut) {
    c.writer = done;
    c.readers.clear();
    return;
  }
  // Readers already done order nothing: drop them so a region read by many
  // launches keeps a short list.
  std::erase_if(c.readers, [&](const StreamEvent& e) {
    return d.cuEventQuery(e.event.get()) == CUDA_SUCCESS;
  });
  c.readers.push_back(done);
}

}  // namespace joule::cuda
