// What the tests of the CUDA backend against the fake driver
// (fake_driver/fake_cuda.cpp) share: settings that load it, its counters,
// a gate a stream can wait at, and polling a device until a launch is done.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>

#include "cuda_settings.hpp"
#include "device.hpp"
#include "joule/types.hpp"

namespace joule::cuda::fake {

inline CudaSettings settings(int streams = 4) {
  CudaSettings s;
  s.driver = FAKE_CUDA_LIB;
  s.streams = streams;
  s.nvml = "/nonexistent/libnvidia-ml.so.1";
  return s;
}

// The fake's counters ("cuMemAlloc", "cuMemFree", "live_blocks",
// "registered", "streams", "ctx_retain", "ctx_release", "bytes_h2d", ...).
inline long count(const char* what) {
  void* h = dlopen(FAKE_CUDA_LIB, RTLD_NOW | RTLD_LOCAL);
  auto fn = reinterpret_cast<long (*)(const char*)>(dlsym(h, "fake_cuda_count"));
  return fn ? fn(what) : -1;
}

// A sticky error every stream reports from now on (0: none).
inline void fail(int error) {
  void* h = dlopen(FAKE_CUDA_LIB, RTLD_NOW | RTLD_LOCAL);
  reinterpret_cast<void (*)(int)>(dlsym(h, "fake_cuda_fail"))(error);
}

// A lost GPU: cuCtxPushCurrent answers `error` from now on (0: it works again).
inline void lose_context(int error) {
  void* h = dlopen(FAKE_CUDA_LIB, RTLD_NOW | RTLD_LOCAL);
  reinterpret_cast<void (*)(int)>(dlsym(h, "fake_cuda_lose_context"))(error);
}

// The environment knobs of the fake, reset for each test.
class FakeEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("FAKE_CUDA_DEVICES", "1", 1);
    unsetenv("FAKE_CUDA_MEMORY");
    unsetenv("FAKE_CUDA_PIN");
  }
  void TearDown() override {
    fail(0);
    lose_context(0);
  }
};

// Host work on a stream can wait here (cuLaunchHostFunc), so a test holds
// a stream at a known point without depending on timing.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool open_ = false;
  void open() {
    std::lock_guard lk(m);
    open_ = true;
    cv.notify_all();
  }
  static void wait(void* g) {
    auto* gate = static_cast<Gate*>(g);
    std::unique_lock lk(gate->m);
    gate->cv.wait(lk, [&] { return gate->open_; });
  }
};

// The message of the joule::error f() throws ("" when it throws none);
// *code gets its code.
template <class F>
std::string error_of(F f, joule_status_t* code = nullptr) {
  try {
    f();
  } catch (const joule::error& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

// Polls until `done` turns true (bounded by the test's TIMEOUT).
template <class Pred>
void poll_until(offload::Device& d, Pred done) {
  while (!done()) d.poll_completions();
}

}  // namespace joule::cuda::fake
