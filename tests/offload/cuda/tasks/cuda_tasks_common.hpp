// Helpers of the CUDA task tests against the fake driver
// (tests/offload/cuda/fake_driver): its device memory is host memory and
// cuLaunchHostFunc runs host functions in stream order, so a task body can
// "compute on the GPU" by enqueueing one on its stream.
#pragma once

#include <gtest/gtest.h>
#include <joule/cuda.hpp>
#include <joule/joule.hpp>

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

#include "cuda_device.hpp"

namespace cuda_tasks {

constexpr std::int64_t kN = 1000;

// A runtime on the fake driver with this many workers.
inline joule::runtime fake_gpu_runtime(int workers) {
  return joule::runtime{{"JOULE_CUDA_DRIVER", JOULE_FAKE_CUDA_DRIVER},
                        {"JOULE_WORKERS", std::to_string(workers)}};
}

// fn() on the current CUDA task's stream, after what the task enqueued before.
template <class F>
void on_stream(F fn) {
  auto* heap = new F(std::move(fn));
  joule::cuda::current_cuda_context()->host_fn(
      [](void* p) {
        F* f = static_cast<F*>(p);
        (*f)();
        delete f;
      },
      heap);
}

inline joule::device_options on_gpu() {
  return joule::device_options{.device = joule::device::cuda};
}

// f(d, i) for every i of p's GPU copy d, in a GPU task using p as `use` says.
template <class F>
void gpu_each(joule::dep use, double* p, F f) {
  joule::spawn(
      {use},
      [=](joule::cuda_context& c) {
        double* d = c.map(p);
        on_stream([=] {
          for (std::int64_t i = 0; i < kN; ++i) f(d, i);
        });
      },
      on_gpu());
}

// p[i] += x on the GPU's copy.
inline void gpu_add(double* p, double x) {
  gpu_each(joule::inout(p, kN), p, [x](double* d, std::int64_t i) { d[i] += x; });
}

// p[i] = x + i on the GPU's copy (out: nothing copied in).
inline void gpu_fill(double* p, double x) {
  gpu_each(joule::out(p, kN), p, [x](double* d, std::int64_t i) { d[i] = x + double(i); });
}

// GPU 0's counters since construction.
struct Gpu0 {
  joule::cuda_device_status base = now();
  static joule::cuda_device_status now() {
    std::string why;
    auto all = joule::cuda_devices(&why);
    if (all.empty()) ADD_FAILURE() << "no fake GPU: " << why;
    return all.empty() ? joule::cuda_device_status{} : all[0];
  }
  std::uint64_t in() const { return now().copies_in - base.copies_in; }
  std::uint64_t hits() const { return now().resident_hits - base.resident_hits; }
  std::uint64_t back() const { return now().copies_back - base.copies_back; }
  std::uint64_t tasks() const { return now().launches - base.launches; }
};

}  // namespace cuda_tasks
