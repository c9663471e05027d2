// A TEST DOUBLE of the CUDA driver library (libcuda), loaded by the tests
// through JOULE_CUDA_DRIVER in place of the real one, as fake sysfs trees
// stand in for cpufreq: it lets the device backend's logic (copies,
// streams, events, residency, errors) be tested on machines without a GPU.
// It implements only the entry points joule resolves, following the
// documented C ABI of cuda.h (names, types, error codes); "device memory"
// is host memory and each stream is a thread running its queue in order.
//
// Knobs (read on each call): FAKE_CUDA_DEVICES (count, default 1; 0 makes
// cuInit fail with CUDA_ERROR_NO_DEVICE), FAKE_CUDA_MEMORY (bytes per
// device, default 16 GiB; cuMemAlloc past it fails with
// CUDA_ERROR_OUT_OF_MEMORY), FAKE_CUDA_PIN=refuse (cuMemHostRegister fails).
// Test hooks: fake_cuda_count(what), fake_cuda_fail(error) and
// fake_cuda_lose_context(error).
#include <cuda.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fake_stream.hpp"

struct CUctx_st {
  int device = 0;
};

namespace {

std::mutex g_m;  // memory, registrations
std::atomic<bool> g_init{false};
std::atomic<int> g_fail{CUDA_SUCCESS};  // sticky error of every stream (0: none)
std::atomic<int> g_lost{CUDA_SUCCESS};  // what cuCtxPushCurrent answers (0: it works)
std::map<CUdeviceptr, size_t> g_blocks;
std::set<const void*> g_registered;
std::map<std::string, long> g_counts;
CUctx_st g_primary[64];
// Trivially destructible, as the driver's own per-thread stack outlives the
// thread's C++ objects: joule calls the driver from atexit handlers, which
// run after the main thread's thread_local destructors.
struct ContextStack {
  CUcontext items[16];
  int n;
};
thread_local ContextStack t_stack{};

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}
int devices() { return int(env_long("FAKE_CUDA_DEVICES", 1)); }
size_t memory() { return size_t(env_long("FAKE_CUDA_MEMORY", 16L << 30)); }

void count(const char* what, long n = 1) {
  std::lock_guard lk(g_m);
  g_counts[what] += n;
}

CUresult ready() { return g_init ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED; }
CUresult in_context() {
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  return t_stack.n == 0 ? CUDA_ERROR_INVALID_CONTEXT : CUDA_SUCCESS;
}
CUresult device_ok(CUdevice d) {
  if (!g_init) return CUDA_ERROR_NOT_INITIALIZED;
  return d >= 0 && d < devices() && d < 64 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

const std::pair<CUresult, const char*> kErrors[] = {
    {CUDA_SUCCESS, "no error"},
    {CUDA_ERROR_INVALID_VALUE, "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"},
    {CUDA_ERROR_NOT_READY, "device not ready"},
    {CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "part or all of the range was already registered"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "the range was not registered"},
    {CUDA_ERROR_NOT_PERMITTED, "operation not permitted"},
};

const char* find_error(CUresult r, bool name) {
  static const char* names[] = {"CUDA_SUCCESS",
                                "CUDA_ERROR_INVALID_VALUE",
                                "CUDA_ERROR_OUT_OF_MEMORY",
                                "CUDA_ERROR_NOT_INITIALIZED",
                                "CUDA_ERROR_NO_DEVICE",
                                "CUDA_ERROR_INVALID_DEVICE",
                                "CUDA_ERROR_INVALID_CONTEXT",
                                "CUDA_ERROR_INVALID_HANDLE",
                                "CUDA_ERROR_NOT_READY",
                                "CUDA_ERROR_LAUNCH_FAILED",
                                "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
                                "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
                                "CUDA_ERROR_NOT_PERMITTED"};
  for (size_t i = 0; i < sizeof kErrors / sizeof kErrors[0]; ++i)
    if (kErrors[i].first == r) return name ? names[i] : kErrors[i].second;
  return nullptr;
}

}  // namespace

// A stream's work fails with the sticky error once one is set.
int fake_stream_error() { return g_fail.load(); }

extern "C" {

__attribute__((visibility("default"))) long fake_cuda_count(const char* what) {
  std::lock_guard lk(g_m);
  if (std::strcmp(what, "live_blocks") == 0) return long(g_blocks.size());
  if (std::strcmp(what, "registered") == 0) return long(g_registered.size());
  if (std::strcmp(what, "streams") == 0) return fake_live_streams();
  auto it = g_counts.find(what);
  return it == g_counts.end() ? 0 : it->second;
}
__attribute__((visibility("default"))) void fake_cuda_fail(int error) { g_fail = error; }
// A lost GPU: its context cannot be made current any more (0: it can).
__attribute__((visibility("default"))) void fake_cuda_lose_context(int error) { g_lost = error; }

CUresult CUDAAPI cuGetErrorName(CUresult r, const char** s) {
  *s = find_error(r, true);
  return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuGetErrorString(CUresult r, const char** s) {
  *s = find_error(r, false);
  return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (devices() <= 0) return CUDA_ERROR_NO_DEVICE;
  g_init = true;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDriverGetVersion(int* v) {
  *v = 13000;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetCount(int* n) {
  *n = g_init ? devices() : 0;
  return ready();
}
CUresult CUDAAPI cuDeviceGet(CUdevice* d, int ordinal) {
  *d = ordinal;
  return device_ok(ordinal);
}
CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice d) {
  if (CUresult r = device_ok(d)) return r;
  std::snprintf(name, size_t(len), "Fake CUDA GPU %d", d);
  return CUDA_SUCCESS;
}
// UUID bytes i = 16 * device + i: device 0 ends ..0e0f, device 1 ..1e1f.
CUresult CUDAAPI cuDeviceGetUuid(CUuuid* uuid, CUdevice d) {
  if (CUresult r = device_ok(d)) return r;
  for (int i = 0; i < 16; ++i) uuid->bytes[i] = char(16 * d + i);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetPCIBusId(char* id, int len, CUdevice d) {
  if (CUresult r = device_ok(d)) return r;
  std::snprintf(id, size_t(len), "0000:%02X:00.0", 0x10 + d);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceTotalMem(size_t* bytes, CUdevice d) {
  *bytes = memory();
  return device_ok(d);
}
CUresult CUDAAPI cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice d) {
  if (CUresult r = device_ok(d)) return r;
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *v = 8 + 8 * d;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *v = 9;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *v = 0;
      break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
      *v = 1980000;
      break;  // kHz
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  if (CUresult r = device_ok(d)) return r;
  g_primary[d].device = d;
  *c = &g_primary[d];
  count("ctx_retain");
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice d) {
  if (CUresult r = device_ok(d)) return r;
  count("ctx_release");
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxPushCurrent(CUcontext c) {
  if (!c || t_stack.n == 16) return CUDA_ERROR_INVALID_CONTEXT;
  if (const int lost = g_lost.load()) return CUresult(lost);
  t_stack.items[t_stack.n++] = c;
  return ready();
}
CUresult CUDAAPI cuCtxPopCurrent(CUcontext* c) {
  if (t_stack.n == 0) return CUDA_ERROR_INVALID_CONTEXT;
  --t_stack.n;
  if (c) *c = t_stack.items[t_stack.n];
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  if (CUresult r = in_context()) return r;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard lk(g_m);
  size_t used = 0;
  for (const auto& [ptr, n] : g_blocks) used += n;
  if (used + bytes > memory()) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = CUdeviceptr(std::malloc(bytes));
  g_blocks[*p] = bytes;
  ++g_counts["cuMemAlloc"];
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemFree(CUdeviceptr p) {
  std::lock_guard lk(g_m);
  if (!g_blocks.erase(p)) return CUDA_ERROR_INVALID_VALUE;
  std::free(reinterpret_cast<void*>(p));
  ++g_counts["cuMemFree"];
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostRegister(void* p, size_t, unsigned int) {
  if (CUresult r = in_context()) return r;
  const char* pin = std::getenv("FAKE_CUDA_PIN");
  if (pin && std::strcmp(pin, "refuse") == 0) return CUDA_ERROR_NOT_PERMITTED;
  std::lock_guard lk(g_m);
  if (!g_registered.insert(p).second) return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  ++g_counts["cuMemHostRegister"];
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostUnregister(void* p) {
  std::lock_guard lk(g_m);
  return g_registered.erase(p) ? CUDA_SUCCESS : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}
CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  if (CUresult r = in_context()) return r;
  std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream s) {
  if (CUresult r = in_context()) return r;
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  count("bytes_h2d", long(bytes));
  return s->enqueue([=] { std::memcpy(reinterpret_cast<void*>(dst), src, bytes); });
}
CUresult CUDAAPI cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream s) {
  if (CUresult r = in_context()) return r;
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  count("bytes_d2h", long(bytes));
  return s->enqueue([=] { std::memcpy(dst, reinterpret_cast<const void*>(src), bytes); });
}

}  // extern "C"
