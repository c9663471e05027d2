// The device copies of host regions on one GPU, keyed by the region's host
// start address (as the card's data directory), and the events that order
// launches on different streams by those copies: the last launch that wrote
// a copy (or copied it in) and the launches that read it since. Not
// thread-safe: the device's mutex guards it.
#pragma once

#include <cstddef>
#include <memory>
#include <unordered_map>
#include <vector>

#include "cuda_driver.hpp"
#include "device.hpp"

namespace joule::cuda {

// An event shared by the copies that wait on it; destroyed with the last
// reference (cuEventDestroy on a pending event is allowed: the driver frees
// it once it completes, CUDA driver API "Event Management").
using CudaEventRef = std::shared_ptr<CUevent_st>;

struct StreamEvent {
  CudaEventRef event;
  CUstream stream = nullptr;
};

struct ResidentCopy {
  CUdeviceptr ptr = 0;
  std::size_t bytes = 0;
  bool pin_tried = false, pinned = false;  // pinned: this device registered the host range
  StreamEvent writer;                      // last copy-in or writing launch
  std::vector<StreamEvent> readers;        // launches that read it since
};

class CudaResidency {
 public:
  explicit CudaResidency(const CudaDriver& d) : d_(d) {}
  ~CudaResidency() { clear(); }
  CudaResidency(const CudaResidency&) = delete;
  CudaResidency& operator=(const CudaResidency&) = delete;

  // The copy of r, allocated on first use (cuMemAlloc) or grown when r is
  // larger than it (the old bytes are kept); the host range page-locked
  // once when `pin` and r is copied (a refusal leaves it pageable).
  ResidentCopy& acquire(const offload::Region& r, bool pin);
  ResidentCopy* find(const void* host);
  // Waits for the copy's events, frees it and unregisters its host range.
  void release(const void* host);
  void clear() noexcept;  // frees every copy (errors ignored: closing)
  std::size_t size() const { return copies_.size(); }
  std::uint64_t allocations() const { return allocations_; }

 private:
  void sync(ResidentCopy& c) const;
  void free(const void* host, ResidentCopy& c) const noexcept;

  const CudaDriver& d_;
  std::unordered_map<const void*, ResidentCopy> copies_;
  std::uint64_t allocations_ = 0;
};

// Makes `s` wait for what a launch using r must follow on other streams: the
// copy's writer, and its readers too when r writes the copy (or copies in).
void wait_for_copy(const CudaDriver& d, CUstream s, const offload::Region& r,
                   const ResidentCopy& c);
// Records a launch's completion event against the copy of r.
void note_use(const CudaDriver& d, const offload::Region& r, ResidentCopy& c,
              const StreamEvent& done);

}  // namespace joule::cuda
