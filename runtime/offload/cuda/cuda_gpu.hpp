// CudaDevice: one GPU behind the Device interface (cuda_device.hpp says how
// a launch runs). Internal to the cuda layer; open_cuda_devices makes them.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "cuda_device.hpp"
#include "cuda_driver.hpp"
#include "cuda_residency.hpp"
#include "gpu_meter.hpp"

namespace joule::cuda {

// A launch's regions as the body sees them (CudaKernelContext::map).
struct MappedRegion {
  const void* host = nullptr;
  std::size_t bytes = 0;
  CUdeviceptr ptr = 0;
};

class CudaDevice final : public offload::Device {
 public:
  // Retains the GPU's primary context and creates its streams; throws
  // joule::error naming the driver call that failed.
  CudaDevice(const CudaDriver& d, const CudaSettings& s, const CudaDeviceInfo& info);
  ~CudaDevice() override;

  std::string describe() const override;
  void submit(const offload::Launch& l, Completion done) override;
  offload::DeviceEnergy energy() const override;
  std::vector<double> frequencies() const override;
  double frequency() const override;
  void set_frequency(double ghz) override;
  bool poll_completions() override;

  const CudaDeviceInfo& info() const { return info_; }

 private:
  struct Pending {
    CudaEventRef event;
    Completion done;
    std::exception_ptr error;  // the body's, delivered once the stream is past it
  };

  CudaEventRef new_event() const;
  std::vector<MappedRegion> prepare(const offload::Launch& l, CUstream s);
  void run_body(const offload::Launch& l, CUstream s, const std::vector<MappedRegion>& m,
                std::exception_ptr* error) const;
  void finish(const offload::Launch& l, std::size_t si, Completion done, std::exception_ptr error);
  void transfer_only(const offload::Launch& l, const Completion& done);
  void enqueue_copies_back(const offload::Launch& l, CUstream s);
  bool poll_stream(std::size_t si);
  void drain() noexcept;
  void fail_pending(std::exception_ptr error) noexcept;

  const CudaDriver& d_;
  const CudaSettings settings_;
  const CudaDeviceInfo info_;
  CUcontext ctx_ = nullptr;
  std::vector<CUstream> streams_;
  std::unique_ptr<GpuMeter> meter_;
  double joules_at_open_ = 0;
  std::chrono::steady_clock::time_point opened_ = std::chrono::steady_clock::now();

  mutable std::mutex m_;  // residency_, pending_, the counters
  CudaResidency residency_;
  std::vector<std::deque<Pending>> pending_;  // per stream, in stream order
  std::atomic<std::size_t> next_stream_{0};
  std::atomic<bool> polling_{false};       // one poller at a time
  std::atomic<std::size_t> in_flight_{0};  // launches in pending_
  std::uint64_t bytes_to_card_ = 0, bytes_to_host_ = 0, launches_ = 0;
};

}  // namespace joule::cuda
