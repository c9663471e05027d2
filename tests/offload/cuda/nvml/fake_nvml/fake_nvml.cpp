// A test double of libnvidia-ml (NVML), loaded by joule through
// JOULE_NVML_LIBRARY / CudaSettings::nvml the way fake sysfs trees stand
// in for cpufreq: it lets the GPU meter, the clock restore and
// `joule-ctl devices` be tested on machines without a GPU or driver. It
// follows NVML's documented C ABI (NVML API Reference Guide: names,
// argument types, nvmlReturn_t values) and nothing else of NVML.
//
// Driven by environment variables, read at each call:
//   FAKE_NVML_GPUS        PCI bus ids, comma-separated (default 0000:3B:00.0)
//   FAKE_NVML_PERMISSION  allow (default) | deny (every clock change:
//                         NVML_ERROR_NO_PERMISSION, API restricted) |
//                         applications (locked clocks NOT_SUPPORTED,
//                         application clocks allowed)
//   FAKE_NVML_ENERGY      unsupported: the energy counter is NOT_SUPPORTED
//   FAKE_NVML_INIT        fail: nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED
//   FAKE_NVML_LOG         a file each set/reset call appends one line to:
//                         "set_locked BUS MIN MAX", "reset_locked BUS",
//                         "set_applications BUS MEM SM", "reset_applications BUS"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

// nvmlReturn_t values (NVML docs, "Error reporting").
constexpr int kSuccess = 0, kInvalidArgument = 2, kNotSupported = 3, kNoPermission = 4,
              kNotFound = 6, kInsufficientSize = 7, kDriverNotLoaded = 9;
// nvmlClockType_t.
constexpr int kGraphics = 0, kSm = 1, kMem = 2;

constexpr unsigned kMemClocks[] = {2619, 1593};
constexpr unsigned kFastSm[] = {1410, 1980, 1755, 1005, 600};  // unsorted on purpose
constexpr unsigned kSlowSm[] = {1005, 600};
constexpr unsigned kDefaultSm = 1755;

struct Gpu {
  std::string bus;
  unsigned locked = 0;  // 0: not locked
  unsigned app_mem = 2619, app_sm = kDefaultSm;
  unsigned long long energy_mj = 5'000'000;
};

std::mutex mu;
std::vector<Gpu>* gpus = nullptr;  // never freed: handles stay valid

std::string env(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

std::vector<Gpu>& all() {
  if (!gpus) {
    gpus = new std::vector<Gpu>;
    std::string list = env("FAKE_NVML_GPUS", "0000:3B:00.0");
    for (std::size_t p = 0; p <= list.size();) {
      const std::size_t c = std::min(list.find(',', p), list.size());
      if (c > p) gpus->push_back({list.substr(p, c - p)});
      p = c + 1;
    }
  }
  return *gpus;
}

Gpu* gpu(void* handle) {
  for (auto& g : all())
    if (&g == handle) return &g;
  return nullptr;
}

void log_call(const std::string& line) {
  const std::string path = env("FAKE_NVML_LOG");
  if (path.empty()) return;
  if (std::FILE* f = std::fopen(path.c_str(), "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

bool denied() { return env("FAKE_NVML_PERMISSION") == "deny"; }

int copy_list(const unsigned* v, unsigned n, unsigned* count, unsigned* out) {
  if (!count) return kInvalidArgument;
  if (*count < n) {
    *count = n;
    return kInsufficientSize;
  }
  *count = n;
  std::memcpy(out, v, n * sizeof(unsigned));
  return kSuccess;
}

bool supported_sm(unsigned mhz) {
  for (unsigned c : kFastSm)
    if (c == mhz) return true;
  return false;
}

}  // namespace

extern "C" {

int nvmlInit_v2() { return env("FAKE_NVML_INIT") == "fail" ? kDriverNotLoaded : kSuccess; }
int nvmlShutdown() { return kSuccess; }

const char* nvmlErrorString(int r) {
  switch (r) {
    case kSuccess:
      return "Success";
    case kInvalidArgument:
      return "Invalid Argument";
    case kNotSupported:
      return "Not Supported";
    case kNoPermission:
      return "Insufficient Permissions";
    case kNotFound:
      return "Not Found";
    case kInsufficientSize:
      return "Insufficient Size";
    case kDriverNotLoaded:
      return "Driver Not Loaded";
    default:
      return "Unknown Error";
  }
}

int nvmlDeviceGetHandleByPciBusId_v2(const char* bus, void** device) {
  std::lock_guard lock(mu);
  for (auto& g : all())
    if (bus && strcasecmp(g.bus.c_str(), bus) == 0) {
      *device = &g;
      return kSuccess;
    }
  return kNotFound;
}

int nvmlDeviceGetName(void* d, char* name, unsigned length) {
  if (!gpu(d) || !name || length < 2) return kInvalidArgument;
  std::snprintf(name, length, "Fake NVML GPU");
  return kSuccess;
}

int nvmlDeviceGetTotalEnergyConsumption(void* d, unsigned long long* mj) {
  std::lock_guard lock(mu);
  Gpu* g = gpu(d);
  if (!g || !mj) return kInvalidArgument;
  if (env("FAKE_NVML_ENERGY") == "unsupported") return kNotSupported;
  g->energy_mj += 250;  // advances with every reading
  *mj = g->energy_mj;
  return kSuccess;
}

int nvmlDeviceGetPowerUsage(void* d, unsigned* mw) {
  if (!gpu(d) || !mw) return kInvalidArgument;
  *mw = 123456;
  return kSuccess;
}

int nvmlDeviceGetClockInfo(void* d, int type, unsigned* mhz) {
  std::lock_guard lock(mu);
  Gpu* g = gpu(d);
  if (!g || !mhz) return kInvalidArgument;
  *mhz = type == kMem ? g->app_mem : g->locked ? g->locked : g->app_sm;
  return kSuccess;
}

int nvmlDeviceGetMaxClockInfo(void* d, int type, unsigned* mhz) {
  if (!gpu(d) || !mhz) return kInvalidArgument;
  *mhz = type == kMem ? kMemClocks[0] : 1980;
  return kSuccess;
}

int nvmlDeviceGetSupportedMemoryClocks(void* d, unsigned* count, unsigned* mhz) {
  if (!gpu(d)) return kInvalidArgument;
  return copy_list(kMemClocks, 2, count, mhz);
}

int nvmlDeviceGetSupportedGraphicsClocks(void* d, unsigned mem, unsigned* count, unsigned* mhz) {
  if (!gpu(d)) return kInvalidArgument;
  if (mem == kMemClocks[0]) return copy_list(kFastSm, 5, count, mhz);
  if (mem == kMemClocks[1]) return copy_list(kSlowSm, 2, count, mhz);
  return kInvalidArgument;
}

int nvmlDeviceGetApplicationsClock(void* d, int type, unsigned* mhz) {
  std::lock_guard lock(mu);
  Gpu* g = gpu(d);
  if (!g || !mhz) return kInvalidArgument;
  *mhz = type == kMem ? g->app_mem : g->app_sm;
  return type == kGraphics || type == kSm || type == kMem ? kSuccess : kInvalidArgument;
}

int nvmlDeviceSetGpuLockedClocks(void* d, unsigned lo, unsigned hi) {
  std::lock_guard lock(mu);
  Gpu* g = gpu(d);
  if (!g) return kInvalidArgument;
  if (denied()) return kNoPermission;
  if (env("FAKE_NVML_PERMISSION") == "applications") return kNotSupported;
  if (lo != hi || !supported_sm(lo)) return kInvalidArgument;
  g->locked = lo;
  log_call("set_locked " + g->bus + " " + std::to_string(lo) + " " + std::to_string(hi));
  return kSuccess;
}

int nvmlDeviceResetGpuLockedClocks(void* d) {
  std::lock_guard lock(mu);
  Gpu* g = gpu(d);
  if (!g) return kInvalidArgument;
  if (denied()) return kNoPermission;
  g->locked = 0;
  log_call("reset_locked " + g->bus);
  return kSuccess;
}

int nvmlDeviceSetApplicationsClocks(void* d, unsigned mem, unsigned sm) {
  std::lock_guard lock(mu);
  Gpu* g = gpu(d);
  if (!g) return kInvalidArgument;
  if (denied()) return kNoPermission;
  if (mem != kMemClocks[0] || !supported_sm(sm)) return kInvalidArgument;
  g->app_mem = mem;
  g->app_sm = sm;
  log_call("set_applications " + g->bus + " " + std::to_string(mem) + " " + std::to_string(sm));
  return kSuccess;
}

int nvmlDeviceResetApplicationsClocks(void* d) {
  std::lock_guard lock(mu);
  Gpu* g = gpu(d);
  if (!g) return kInvalidArgument;
  if (denied()) return kNoPermission;
  g->app_mem = kMemClocks[0];
  g->app_sm = kDefaultSm;
  log_call("reset_applications " + g->bus);
  return kSuccess;
}

// nvmlMemory_t: total, free, used (bytes).
struct FakeMemory {
  unsigned long long total, free, used;
};
int nvmlDeviceGetMemoryInfo(void* d, FakeMemory* m) {
  if (!gpu(d) || !m) return kInvalidArgument;
  *m = {80ull << 30, 79ull << 30, 1ull << 30};
  return kSuccess;
}

// nvmlRestrictedAPI_t 0: NVML_RESTRICTED_API_SET_APPLICATION_CLOCKS;
// nvmlEnableState_t 1: NVML_FEATURE_ENABLED (restricted to root).
int nvmlDeviceGetAPIRestriction(void* d, int api, int* restricted) {
  if (!gpu(d) || !restricted || api < 0) return kInvalidArgument;
  *restricted = denied() ? 1 : 0;
  return kSuccess;
}

}  // extern "C"
