// The emulated DVFS backend: a virtual P-state table per domain. It changes
// nothing on the machine; the platform observer makes a slowed CPU really
// slower by keeping its worker busy after each task (see
// platform_observer.cpp), so policies have real time effects anywhere.
#include "dvfs.hpp"

namespace joule::platform {
namespace {

class EmulatedDvfs final : public Dvfs {
 public:
  EmulatedDvfs(const std::vector<std::vector<int>>& groups, std::vector<std::uint32_t> table,
               std::uint64_t latency_ns) {
    caps_ = kCapSet | kCapStretch | (latency_ns ? kCapLatency : 0u);
    set_stall_ns(latency_ns);
    for (const auto& g : groups) add_domain(g, table, int(table.size()) - 1);
  }
  const char* name() const override { return "emulated"; }

 protected:
  bool apply(int, std::uint32_t) override { return true; }
};

}  // namespace

std::unique_ptr<Dvfs> make_emulated_dvfs(const std::vector<std::vector<int>>& groups,
                                         std::vector<std::uint32_t> table,
                                         std::uint64_t latency_ns) {
  return std::make_unique<EmulatedDvfs>(groups, std::move(table), latency_ns);
}

}  // namespace joule::platform
