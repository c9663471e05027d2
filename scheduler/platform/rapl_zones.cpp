#include "rapl_zones.hpp"

#include <charconv>

namespace joule::platform {
namespace {

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

}  // namespace

// Zone names look like intel-rapl:0 (package) and intel-rapl:0:2 (subzone).
std::vector<RaplZone> discover_rapl_zones(const Sysfs& fs) {
  const std::string base = kPowercapDir;
  std::vector<RaplZone> zones;
  for (const auto& entry : fs.list(base)) {
    if (entry.rfind("intel-rapl:", 0) != 0) continue;  // intel-rapl-mmio repeats package-N
    const std::string dir = base + "/" + entry;
    auto zone_name = fs.read(dir + "/name");
    auto energy = fs.read_u64(dir + "/energy_uj");
    if (!zone_name || !energy) continue;
    MeterDomain d{*zone_name, kind_of(*zone_name), chip_of(*zone_name), 0.0};
    const auto colon2 = entry.find(':', 11);
    if (colon2 != std::string::npos) {  // a subzone: named after its package
      auto pname = fs.read(base + "/" + entry.substr(0, colon2) + "/name").value_or("zone");
      d.chip = chip_of(pname);
      d.name = pname + "/" + *zone_name;
    }
    zones.push_back({dir, d, fs.read_u64(dir + "/max_energy_range_uj").value_or(0), *energy});
  }
  return zones;
}

std::string no_rapl_reason(const Sysfs& fs) {
  return fs.exists(kPowercapDir)
             ? "no readable intel-rapl energy_uj under " + fs.path(kPowercapDir) +
                   " (reading it needs root on recent kernels)"
             : "no " + fs.path(kPowercapDir);
}

}  // namespace joule::platform
