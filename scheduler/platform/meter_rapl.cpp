#include <charconv>

#include "log.hpp"
#include "meter.hpp"

namespace joule::platform {
namespace {

const std::string kPowercap = "/sys/class/powercap";

struct Zone {
  std::string dir;
  std::uint64_t max_range = 0;
  std::uint64_t last = 0;
};

std::string kind_of(const std::string& name) {
  if (name.rfind("package", 0) == 0) return "package";
  for (const char* k : {"core", "uncore", "dram", "psys"})
    if (name == k) return k;
  return "other";
}

int chip_of(const std::string& name) {
  const auto dash = name.rfind('-');
  if (name.rfind("package-", 0) != 0 || dash == std::string::npos) return -1;
  int chip = -1;
  std::from_chars(name.data() + dash + 1, name.data() + name.size(), chip);
  return chip;
}

class RaplMeter final : public EnergyMeter {
 public:
  explicit RaplMeter(Sysfs fs) : fs_(std::move(fs)) {}
  const char* name() const override { return "rapl"; }

  // Zone names look like intel-rapl:0 (package) and intel-rapl:0:2 (subzone).
  bool discover() {
    for (const auto& entry : fs_.list(kPowercap)) {
      if (entry.rfind("intel-rapl:", 0) != 0) continue;  // intel-rapl-mmio repeats package-N
      const std::string dir = kPowercap + "/" + entry;
      auto zone_name = fs_.read(dir + "/name");
      auto energy = fs_.read_u64(dir + "/energy_uj");
      if (!zone_name || !energy) continue;
      MeterDomain d{*zone_name, kind_of(*zone_name), chip_of(*zone_name), 0.0};
      const auto colon2 = entry.find(':', 11);
      if (colon2 != std::string::npos) {  // a subzone: named after its package
        const std::string parent = kPowercap + "/" + entry.substr(0, colon2);
        auto pname = fs_.read(parent + "/name").value_or("zone");
        d.chip = chip_of(pname);
        d.name = pname + "/" + *zone_name;
      }
      zones_.push_back({dir, fs_.read_u64(dir + "/max_energy_range_uj").value_or(0), *energy});
      domains_.push_back(d);
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
  if (why)
    *why = fs.exists(kPowercap) ? "no readable intel-rapl energy_uj under " + fs.path(kPowercap) +
                                      " (reading it needs root on recent kernels)"
                                : "no " + fs.path(kPowercap);
  return nullptr;
}

}  // namespace joule::platform
