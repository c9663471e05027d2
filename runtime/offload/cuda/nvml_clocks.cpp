#include "nvml_clocks.hpp"

#include <unistd.h>

#include <algorithm>
#include <functional>

namespace joule::cuda::nvml {
namespace {

// NVML's two-call convention: a too-small count returns
// NVML_ERROR_INSUFFICIENT_SIZE and the count needed.
std::vector<unsigned> query_list(const std::function<Return(unsigned*, unsigned*)>& call) {
  std::vector<unsigned> out(64);
  for (int attempt = 0; attempt < 3; ++attempt) {
    unsigned n = unsigned(out.size());
    const Return rc = call(&n, out.data());
    if (rc == kSuccess) {
      out.resize(std::min<std::size_t>(n, out.size()));
      return out;
    }
    if (rc != kErrorInsufficientSize || n <= out.size()) break;
    out.resize(n);
  }
  return {};
}

}  // namespace

std::vector<int> supported_sm_clocks(const Library& lib, Device dev) {
  const auto mems =
      query_list([&](unsigned* n, unsigned* v) { return lib.supported_memory_clocks(dev, n, v); });
  if (mems.empty()) return {};
  const unsigned mem = *std::max_element(mems.begin(), mems.end());
  const auto sm = query_list(
      [&](unsigned* n, unsigned* v) { return lib.supported_graphics_clocks(dev, mem, n, v); });
  std::vector<int> out(sm.begin(), sm.end());
  std::sort(out.begin(), out.end(), std::greater<>());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string clock_list(const std::vector<int>& mhz) {
  if (mhz.empty()) return "none known";
  std::string out;
  constexpr std::size_t kEnds = 6;
  for (std::size_t i = 0; i < mhz.size(); ++i) {
    if (mhz.size() > 2 * kEnds && i == kEnds) {
      out += ", ...";
      i = mhz.size() - kEnds;
    }
    out += (out.empty() ? "" : ", ") + std::to_string(mhz[i]);
  }
  return out;
}

bool device_memory(const CudaSettings& s, const std::string& bus_id, Memory* m) {
  const Library* lib = load_library(s.nvml, nullptr);
  Device dev = nullptr;
  return lib && lib->handle_by_bus_id(bus_id.c_str(), &dev) == kSuccess &&
         lib->memory_info(dev, m) == kSuccess;
}

std::string clock_permission(const CudaSettings& s, const std::string& bus_id) {
  std::string why;
  const Library* lib = load_library(s.nvml, &why);
  if (!lib) return "no: " + why;
  Device dev = nullptr;
  if (const Return rc = lib->handle_by_bus_id(bus_id.c_str(), &dev); rc != kSuccess)
    return "no: nvmlDeviceGetHandleByPciBusId_v2: " + lib->error(rc);
  // Root may set both kinds of clocks; others only the application clocks,
  // and only where they are unrestricted (nvidia-smi -acp).
  if (::geteuid() == 0) return "yes (root)";
  if (!lib->api_restriction) return "unknown until tried (no nvmlDeviceGetAPIRestriction)";
  int restricted = 0;
  const Return rc = lib->api_restriction(dev, kRestrictedApiSetApplicationClocks, &restricted);
  if (rc != kSuccess)
    return "unknown until tried (nvmlDeviceGetAPIRestriction: " + lib->error(rc) + ")";
  if (restricted == kFeatureEnabled) return "no: needs root or `nvidia-smi -acp UNRESTRICTED`";
  return "application clocks: yes (unrestricted); locked clocks: root only";
}

}  // namespace joule::cuda::nvml
