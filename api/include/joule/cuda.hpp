// Tasks on CUDA GPUs (docs/offload.md, "CUDA GPUs"). A CUDA task's body runs
// on a host worker and enqueues kernels on the task's stream; joule copies
// the regions its dependencies name (copy_deps) or that copy_in / copy_out /
// copy_inout list to the GPU before, back after, and keeps them resident on
// the GPU between CUDA tasks exactly as the card's data (joule/offload.hpp).
// The task completes when the GPU has done everything enqueued on its
// stream: an event polled by idle workers and at task boundaries, so no
// worker waits on the GPU.
//
//   joule::spawn({joule::in(x, n), joule::inout(y, n)},
//                [=](joule::cuda_context& c) {
//                  saxpy<<<(n + 255) / 256, 256, 0, c.stream()>>>(n, a, c.map(x), c.map(y));
//                },
//                joule::device_options{.device = joule::device::cuda});
//
// Without a GPU (or a driver) such a task fails with joule::error saying why;
// joule::cuda_devices() tells beforehand.
#pragma once

#include <joule/cuda.h>
#include <joule/offload.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace joule {

namespace detail {
using cuda_body_fn = void (*)(void* body, void* ctx);
JOULE_EXPORT void* cuda_map(void* ctx, const void* host);
JOULE_EXPORT CUstream_st* cuda_stream(void* ctx);
JOULE_EXPORT int cuda_device(void* ctx);
// The host side of a CUDA task's body: copies in, body(ctx) on this
// thread, copies back, completion when the stream's event is done.
JOULE_EXPORT void cuda_run(int device_num, cuda_body_fn fn, void* body, const dep* deps,
                           std::size_t ndeps, bool copy_deps, const copy_region* copies,
                           std::size_t ncopies);
// Spawning a CUDA task: as card_enter (joule/offload.hpp) for the GPU's
// record of which copy is current; ended by card_leave.
JOULE_EXPORT void* cuda_enter(int device_num, const dep* deps, std::size_t ndeps, bool copy_deps,
                              const copy_region* copies, std::size_t ncopies);
}  // namespace detail

class cuda_context {
 public:
  explicit cuda_context(void* impl) noexcept : impl_(impl) {}
  // The task's stream: pass it to <<<..., stream>>> or cudaLaunchKernel.
  CUstream_st* stream() const { return detail::cuda_stream(impl_); }
  // The GPU's copy of a host address inside one of the task's regions.
  template <class T>
  T* map(T* host) const {
    return static_cast<T*>(detail::cuda_map(impl_, host));
  }
  int device() const { return detail::cuda_device(impl_); }

 private:
  void* impl_;
};

template <class F>
requires std::is_invocable_v < std::decay_t<F>
&, cuda_context& > void spawn(std::span<const dep> deps, F&& body, const device_options& opts) {
  using Body = std::decay_t<F>;
  struct Proxy {
    Body body;
    std::vector<dep> deps;
    device_options opts;
    void operator()() {
      auto call = [](void* b, void* ctx) {
        cuda_context c(ctx);
        (*static_cast<Body*>(b))(c);
      };
      detail::cuda_run(opts.device_num, call, &body, deps.data(), deps.size(), opts.copy_deps,
                       opts.copies.data(), opts.copies.size());
    }
  };
  device_options o = opts;
  o.device = device::cuda;
  void* entered = detail::cuda_enter(o.device_num, deps.data(), deps.size(), o.copy_deps,
                                     o.copies.data(), o.copies.size());
  detail::submit_entered(entered, deps, Proxy{std::forward<F>(body), {deps.begin(), deps.end()}, o},
                         o.task);
}

template <class F>
requires std::is_invocable_v < std::decay_t<F>
&, cuda_context& >
       void spawn(std::initializer_list<dep> deps, F&& body, const device_options& opts) {
  spawn(std::span<const dep>(deps.begin(), deps.size()), std::forward<F>(body), opts);
}

// A GPU as joule sees it, with what it has done so far.
struct cuda_device_status {
  int index = 0;
  std::string name, pci_bus_id;
  std::size_t total_bytes = 0, free_bytes = 0;
  double seconds = 0;  // since joule opened it
  double joules = 0;   // NVML's energy counter over that time (energy_measured)
  bool energy_measured = false;
  double watts = 0;      // power now (0: not readable)
  int sm_clock_mhz = 0;  // now (0: not readable)
  std::uint64_t launches = 0, bytes_to_gpu = 0, bytes_to_host = 0;
  std::uint64_t copies_in = 0, resident_hits = 0, copies_back = 0;
};
// The GPUs joule uses (opening them if the runtime has not yet); empty with
// `why_none` set (if given) when there is none.
JOULE_EXPORT std::vector<cuda_device_status> cuda_devices(std::string* why_none = nullptr);
// The GPU's supported SM clocks (MHz, highest first) and a lock at one of
// them; throws joule::error naming why the driver refused (permissions,
// unsupported). joule restores the clocks it changed when the runtime stops.
JOULE_EXPORT std::vector<int> cuda_sm_clocks(int device_num);
JOULE_EXPORT void set_cuda_sm_clock(int device_num, int mhz);

}  // namespace joule
