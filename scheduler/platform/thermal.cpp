#include "thermal.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>

namespace joule::platform {

RcThermal::RcThermal(RcParams p, int chips, double initial_watts, std::uint64_t now_ns)
    : p_(std::move(p)),
      temp_(std::size_t(chips)),
      last_joules_(std::size_t(chips), 0.0),
      last_ns_(now_ns) {
  for (int c = 0; c < chips; ++c) temp_[std::size_t(c)] = steady_state(c, initial_watts);
}

double RcThermal::steady_state(int chip, double watts) const {
  const double hot = std::size_t(chip) < p_.hotspot.size() ? p_.hotspot[std::size_t(chip)] : 0.0;
  return p_.alpha * (p_.air + hot) + p_.beta * watts + p_.gamma;
}

std::vector<double> RcThermal::update(std::uint64_t now_ns,
                                      const std::vector<double>& chip_joules) {
  if (now_ns > last_ns_) {
    const double dt = double(now_ns - last_ns_) * 1e-9;
    const double decay = std::exp(-dt / p_.tau_s);
    for (std::size_t c = 0; c < temp_.size(); ++c) {
      const double j = c < chip_joules.size() ? chip_joules[c] : last_joules_[c];
      const double watts = (j - last_joules_[c]) / dt;
      const double ss = steady_state(int(c), watts);
      temp_[c] = ss + (temp_[c] - ss) * decay;
      last_joules_[c] = j;
    }
    last_ns_ = now_ns;
  }
  return temp_;
}

namespace {

int number_after(const std::string& s, const std::string& prefix) {
  if (s.rfind(prefix, 0) != 0) return -1;
  int v = -1;
  std::from_chars(s.data() + prefix.size(), s.data() + s.size(), v);
  return v;
}

// Files whose millidegree reading stands for a chip.
class SensorThermal final : public Thermal {
 public:
  SensorThermal(Sysfs fs, std::vector<std::string> files)
      : fs_(std::move(fs)), files_(std::move(files)) {}
  const char* name() const override { return "hwmon"; }
  bool measured() const override { return true; }
  std::vector<double> update(std::uint64_t, const std::vector<double>&) override {
    std::vector<double> out;
    for (const auto& f : files_) {
      auto v = f.empty() ? std::nullopt : fs_.read_u64(f);
      out.push_back(v ? double(*v) / 1000.0 : std::numeric_limits<double>::quiet_NaN());
    }
    return out;
  }

 private:
  Sysfs fs_;
  std::vector<std::string> files_;  // per chip, "" if none
};

// coretemp: "Package id N" labels; k10temp / zenpower: one device per chip,
// Tctl (or the first input). Returns chip -> file.
std::map<int, std::string> hwmon_chips(const Sysfs& fs) {
  std::map<int, std::string> out;
  const std::string base = "/sys/class/hwmon";
  int amd_index = 0;
  for (const auto& dev : fs.list(base)) {
    const std::string dir = base + "/" + dev;
    const std::string name = fs.read(dir + "/name").value_or("");
    const bool amd = name == "k10temp" || name == "zenpower";
    std::string first;
    for (const auto& f : fs.list(dir)) {
      if (f.rfind("temp", 0) != 0 || f.size() < 7 || f.substr(f.size() - 6) != "_input") continue;
      const std::string input = dir + "/" + f;
      if (!fs.read_u64(input)) continue;
      const std::string label =
          fs.read(dir + "/" + f.substr(0, f.size() - 6) + "_label").value_or("");
      const int pkg = number_after(label, "Package id ");
      if (name == "coretemp" && pkg >= 0) out.emplace(pkg, input);
      if (amd && (first.empty() || label == "Tctl" || label == "Tdie")) first = input;
    }
    if (amd && !first.empty()) out.emplace(amd_index++, first);
  }
  return out;
}

std::map<int, std::string> zone_chips(const Sysfs& fs) {
  std::map<int, std::string> out;
  const std::string base = "/sys/class/thermal";
  int index = 0;
  for (const auto& z : fs.list(base)) {
    if (z.rfind("thermal_zone", 0) != 0) continue;
    const std::string dir = base + "/" + z;
    if (fs.read(dir + "/type").value_or("") != "x86_pkg_temp" || !fs.read_u64(dir + "/temp"))
      continue;
    out.emplace(index++, dir + "/temp");
  }
  return out;
}

}  // namespace

std::unique_ptr<Thermal> make_sensor_thermal(const Sysfs& fs, int chips, std::string* why) {
  auto found = hwmon_chips(fs);
  if (found.empty()) found = zone_chips(fs);
  if (found.empty()) {
    if (why)
      *why = "no hwmon (coretemp, k10temp) or x86_pkg_temp thermal zone under " +
             fs.path("/sys/class");
    return nullptr;
  }
  std::vector<std::string> files(std::size_t(std::max(chips, found.rbegin()->first + 1)));
  for (auto& [chip, f] : found) files[std::size_t(chip)] = f;
  return std::make_unique<SensorThermal>(fs, std::move(files));
}

}  // namespace joule::platform
