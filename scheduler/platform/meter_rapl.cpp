#include "log.hpp"
#include "meter.hpp"
#include "rapl_zones.hpp"

namespace joule::platform {
namespace {

struct Zone {
  std::string dir;
  std::uint64_t max_range = 0;
  std::uint64_t last = 0;
};

class RaplMeter final : public EnergyMeter {
 public:
  explicit RaplMeter(Sysfs fs) : fs_(std::move(fs)) {}
  const char* name() const override { return "rapl"; }

  bool discover() {
    for (auto& z : discover_rapl_zones(fs_)) {
      zones_.push_back({z.dir, z.max_range_uj, z.energy_uj});
      domains_.push_back(std::move(z.domain));
    }
    return !zones_.empty();
  }

  void start() override {
    std::lock_guard guard(mu_);
    for (std::size_t i = 0; i < zones_.size(); ++i) {
      zones_[i].last = fs_.read_u64(zones_[i].dir + "/energy_uj").value_or(zones_[i].last);
      domains_[i].joules = 0;
    }
  }

  void sample() override {
    std::lock_guard guard(mu_);
    for (std::size_t i = 0; i < zones_.size(); ++i) {
      auto v = fs_.read_u64(zones_[i].dir + "/energy_uj");
      if (!v) continue;
      if (*v < zones_[i].last && zones_[i].max_range == 0)
        core::warn_once(
            "rapl-range:" + zones_[i].dir,
            "rapl: " + zones_[i].dir + " wrapped without max_energy_range_uj; one interval lost");
      domains_[i].joules += double(counter_delta(zones_[i].last, *v, zones_[i].max_range)) * 1e-6;
      zones_[i].last = *v;
    }
  }

 private:
  Sysfs fs_;
  std::vector<Zone> zones_;
};

}  // namespace

std::unique_ptr<EnergyMeter> make_rapl_meter(const Sysfs& fs, std::string* why) {
  auto m = std::make_unique<RaplMeter>(fs);
  if (m->discover()) return m;
  if (why) *why = no_rapl_reason(fs);
  return nullptr;
}

}  // namespace joule::platform
