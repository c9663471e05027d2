// none: never changes anything (the frequencies stay as the DVFS backend
// found or set them at start).
#include "energy_registry.hpp"

namespace joule::energy {
namespace {

class NonePolicy final : public EnergyPolicy {
 public:
  const char* name() const override { return "none"; }
  Trigger trigger() const override { return Trigger::periodic; }
  Decision decide(const Observation&) override { return {}; }
};

}  // namespace

std::unique_ptr<EnergyPolicy> make_none(const Options&) { return std::make_unique<NonePolicy>(); }

}  // namespace joule::energy
