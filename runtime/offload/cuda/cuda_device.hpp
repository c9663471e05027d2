// CUDA GPUs behind the offload device interface (device.hpp; docs/offload.md,
// "CUDA GPUs"). The driver API is loaded at run time (dlopen of
// CudaSettings::driver) and each GPU is used through its primary context,
// which the CUDA runtime of the program's own .cu files shares, so kernels
// launched with cudaLaunchKernel or <<<...>>> on the stream joule hands out
// run in the same context as joule's copies.
//
// A launch on a CUDA device differs from the card's in one way: its body
// runs on the thread that calls submit() (the task's worker), where it only
// enqueues work on the launch's stream. submit() enqueues the copies in,
// calls fn(args, ctx) with ctx a CudaKernelContext, enqueues the copies
// back, records an event and returns. `done` runs from poll_completions() once that
// event has completed: nothing blocks on the GPU. Launches are spread over
// the device's streams; one that uses a region waits (cuStreamWaitEvent) for
// the last launch that copied it in or wrote it. Transfer-only launches
// (fn null: Device::copy_out, release) complete before submit returns.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cuda_settings.hpp"
#include "device.hpp"
#include "kernel_context.hpp"

namespace joule::cuda {

struct CudaDeviceInfo {
  int index = 0;           // the driver's ordinal (after CUDA_VISIBLE_DEVICES)
  std::string name;        // "NVIDIA H200"
  std::string pci_bus_id;  // "0000:3B:00.0"
  std::size_t total_bytes = 0, free_bytes = 0;
  int sm_count = 0, cc_major = 0, cc_minor = 0;
  int sm_clock_mhz_max = 0;     // cuDeviceGetAttribute(CLOCK_RATE)
  unsigned char uuid[16] = {};  // cuDeviceGetUuid; has_uuid false when the driver lacks it
  bool has_uuid = false;
};

// What the driver shows; `devices` empty and `why_none` saying why
// ("JOULE_CUDA=off", "built without CUDA", "no CUDA driver: libcuda.so.1: ...",
// "cuInit: CUDA_ERROR_NO_DEVICE", ...).
struct CudaProbe {
  std::vector<CudaDeviceInfo> devices;
  std::string why_none;
  int driver_version = 0;  // cuDriverGetVersion, e.g. 12080
};
CudaProbe probe_cuda(const CudaSettings& s);

// A CUDA task body's view: the task's stream and its regions' device copies.
class CudaKernelContext : public offload::KernelContext {
 public:
  virtual void* stream() const = 0;  // a CUstream, which is a cudaStream_t
  virtual int device() const = 0;    // the driver's ordinal
  // Enqueue fn(arg) on the stream (cuLaunchHostFunc): host work in stream order.
  virtual void host_fn(void (*fn)(void*), void* arg) = 0;
};
// The context of the CUDA task body running on this thread (null outside one).
CudaKernelContext* current_cuda_context() noexcept;

// One Device per GPU (empty with why_none set when there is none). The
// devices. poll_completions() runs completions; their energy() is NVML's (measured).
std::vector<std::unique_ptr<offload::Device>> open_cuda_devices(const CudaSettings& s,
                                                                std::string* why_none);

}  // namespace joule::cuda
