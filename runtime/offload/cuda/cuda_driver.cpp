// Loading the CUDA driver (cuda_driver.hpp).
#include "cuda_driver.hpp"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>

#include "joule/types.hpp"

namespace joule::cuda {
namespace {

struct Loaded {
  std::unique_ptr<CudaDriver> driver;  // null: why says what failed
  std::string why;
};

Loaded load(const std::string& path) {
  Loaded out;
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace, so
  // a program that links libcuda itself sees its own.
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    out.why = std::string("no CUDA driver: ") + (e ? e : path.c_str());
    return out;
  }
  auto d = std::make_unique<CudaDriver>();
  std::string missing;
#define JOULE_CUDA_RESOLVE(name)                                  \
  d->name = reinterpret_cast<decltype(d->name)>(dlsym(h, #name)); \
  if (!d->name && missing.empty()) missing = #name;
  JOULE_CUDA_CALLS(JOULE_CUDA_RESOLVE)
#undef JOULE_CUDA_RESOLVE
  if (!missing.empty()) {
    out.why = "no CUDA driver: " + path + " has no " + missing + " (driver too old?)";
    return out;  // the handle stays open: loading is tried once per path
  }
  d->cuDeviceGetUuid =
      reinterpret_cast<decltype(d->cuDeviceGetUuid)>(dlsym(h, "cuDeviceGetUuid_v2"));
  if (!d->cuDeviceGetUuid)
    d->cuDeviceGetUuid =
        reinterpret_cast<decltype(d->cuDeviceGetUuid)>(dlsym(h, "cuDeviceGetUuid"));
  out.driver = std::move(d);
  return out;
}

}  // namespace

std::string CudaDriver::error_text(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
    return "CUDA error " + std::to_string(int(r));
  std::string out = name;
  if (cuGetErrorString(r, &text) == CUDA_SUCCESS && text) out += std::string(" (") + text + ")";
  return out;
}

void CudaDriver::check(CUresult r, const char* call) const {
  if (r == CUDA_SUCCESS) return;
  const joule_status_t code = r == CUDA_ERROR_OUT_OF_MEMORY ? JOULE_ERR_NOMEM : JOULE_ERR_STATE;
  throw joule::error(code, std::string(call) + ": " + error_text(r));
}

const CudaDriver* load_cuda_driver(const std::string& path, std::string* why) {
  static std::mutex m;
  static std::map<std::string, Loaded>* loaded = new std::map<std::string, Loaded>;  // never freed
  std::lock_guard lk(m);
  auto it = loaded->find(path);
  if (it == loaded->end()) it = loaded->emplace(path, load(path)).first;
  if (!it->second.driver && why) *why = it->second.why;
  return it->second.driver.get();
}

CudaContextScope::CudaContextScope(const CudaDriver& d, CUcontext ctx) : d_(d) {
  d_.check(d_.cuCtxPushCurrent_v2(ctx), "cuCtxPushCurrent");
}

CudaContextScope::~CudaContextScope() {
  CUcontext popped = nullptr;
  d_.cuCtxPopCurrent_v2(&popped);
}

}  // namespace joule::cuda
