#include "cpu_manager.hpp"

#include "config.hpp"

namespace joule::rt {
namespace {

// Keeps the process's CPUs for good: every hook is a no-op.
class OwnCpusManager final : public CpuManager {
 public:
  const char* name() const override { return "own"; }
};

CpuManagerFactory g_lending = nullptr;

}  // namespace

void set_lending_factory(CpuManagerFactory make) noexcept { g_lending = make; }

std::unique_ptr<CpuManager> make_cpu_manager(const Config& cfg) {
  if (cfg.lewi.mode != "off" && g_lending)
    if (auto m = g_lending(cfg)) return m;
  return std::make_unique<OwnCpusManager>();
}

}  // namespace joule::rt
