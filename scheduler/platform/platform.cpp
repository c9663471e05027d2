// Backend selection (auto probing, fallbacks with one warning) and the API
// that policies call.
#include "platform.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "config.hpp"
#include "dvfs_cpufreq.hpp"
#include "log.hpp"
#include "observer.hpp"
#include "platform_listener.hpp"
#include "service_session.hpp"
#include "worker_slot.hpp"

namespace joule::platform {
namespace {

std::atomic<Platform*> g_current{nullptr};

// Cheap enough for every start: one stat, one small directory listing.
bool cpufreq_present(const Sysfs& fs) {
  if (fs.exists("/sys/devices/system/cpu/cpu0/cpufreq")) return true;
  for (const auto& e : fs.list("/sys/devices/system/cpu/cpufreq"))
    if (e.rfind("policy", 0) == 0) return true;
  return false;
}

Machine load_machine(const core::Config& cfg) {
  try {
    return Machine::load(cfg.get<PlatformSettings>().topology);
  } catch (const std::exception& e) {
    core::warn_once("machine", std::string("platform: ") + e.what() + "; assuming one chip");
    return Machine::uniform(1, 1);
  }
}

}  // namespace

Platform* current_platform() noexcept { return g_current.load(std::memory_order_acquire); }
void set_current_platform(Platform* p) noexcept { g_current.store(p, std::memory_order_release); }

bool platform_wanted(const core::Config& cfg) {
  const auto& p = cfg.get<PlatformSettings>();
  if (cfg.report || p.dvfs == DvfsKind::emulated || p.dvfs == DvfsKind::cpufreq ||
      p.dvfs == DvfsKind::service || p.counters != CounterKind::none ||
      p.meter != MeterKind::automatic || p.thermal != ThermalKind::automatic)
    return true;
  return p.dvfs == DvfsKind::automatic &&
         (cpufreq_present(Sysfs(p.sysfs_root)) ||
          ::access(service_client::socket_path(p.service_socket).c_str(), F_OK) == 0);
}

double EnergyReading::total_joules() const {
  double t = 0;
  for (double j : chip_joules) t += j;
  return t;
}

Platform::Platform(const core::Config& cfg) : Platform(cfg, cfg.get<PlatformSettings>()) {}

Platform::Platform(const core::Config& cfg, const PlatformSettings& ps)
    : sysfs_(ps.sysfs_root),
      machine_(load_machine(cfg)),
      model_(ps.power_busy, ps.power_idle, ps.power_uncore),
      nominal_(ps.pstate_table()),
      start_frequency_(ps.dvfs_start),
      memory_bound_(ps.memory_bound),
      memory_bound_default_(ps.memory_bound_default) {
  choose_dvfs(cfg);
  choose_meter(cfg);
  choose_thermal(cfg);
  counters_ = ps.counters == CounterKind::papi;
  counter_events_ = ps.counter_events;
  if (task_clock_meter_ && std::find(counter_events_.begin(), counter_events_.end(),
                                     "perf::TASK-CLOCK") == counter_events_.end())
    counter_events_.push_back("perf::TASK-CLOCK");
  if (task_clock_meter_ && !counters_) counter_events_ = {"perf::TASK-CLOCK"};
  active_ = cfg.report || dvfs_->can_set() || counters_ || ps.meter != MeterKind::automatic ||
            ps.thermal != ThermalKind::automatic;
}

void Platform::set_listener(std::unique_ptr<PlatformListener> l) {
  listener_ = std::move(l);
  listener_live_ = listener_ && listener_->live();
}

std::vector<double> Platform::last_temperatures() const {
  std::lock_guard guard(sample_mu_);
  return last_temp_;
}

Platform::~Platform() {
  if (current_platform() == this) set_current_platform(nullptr);
}

void Platform::choose_dvfs(const core::Config& cfg) {
  const auto& p = cfg.get<PlatformSettings>();
  DvfsKind want = p.dvfs;
  if (want == DvfsKind::automatic || want == DvfsKind::cpufreq) {
    CpufreqStatus st;
    auto cf =
        cpufreq_present(sysfs_) ? make_cpufreq_dvfs(sysfs_, machine_, p.dvfs_domain, &st) : nullptr;
    const std::string where = sysfs_.path("/sys/devices/system/cpu");
    if (cf && cf->num_domains() > 0) {
      if (st.writable < st.domains)
        core::warn_once("cpufreq-partial", "cpufreq: " + std::to_string(st.domains - st.writable) +
                                               " frequency domain(s) left alone: " + st.detail);
      dvfs_ = std::move(cf);
      dvfs_note_ = want == DvfsKind::automatic ? "auto: cpufreq found and writable" : "";
      return;
    }
    const std::string why =
        !cf ? "no cpufreq under " + where
        : st.domains > 0
            ? "cpufreq under " + where + " is not writable (changing frequencies needs root)"
            : "no usable cpufreq policy under " + where +
                  (st.detail.empty() ? "" : " (" + st.detail + ")");
    if (want == DvfsKind::automatic) {
      choose_service_dvfs(p, false, why);
      return;
    }
    core::warn_once("cpufreq-fallback", why + "; using emulated DVFS instead");
    dvfs_note_ = "cpufreq requested: " + why;
    want = DvfsKind::emulated;
  }
  if (want == DvfsKind::service) {
    choose_service_dvfs(p, true, "");
    return;
  }
  if (want == DvfsKind::emulated) {
    std::vector<std::vector<int>> groups;
    if (p.dvfs_domain == DvfsDomain::chip) {
      for (int c = 0; c < machine_.num_chips(); ++c) groups.push_back(machine_.cpus_of_chip(c));
    } else {
      for (const auto& pu : machine_.pus()) groups.push_back({pu.cpu});
    }
    dvfs_ = make_emulated_dvfs(groups, nominal_, std::uint64_t(p.dvfs_latency_us) * 1000);
    return;
  }
  dvfs_ = make_none_dvfs();
}

void Platform::choose_meter(const core::Config& cfg) {
  const auto& ps = cfg.get<PlatformSettings>();
  const MeterKind want = ps.meter;
  std::string why_rapl, why_papi;
  if (want == MeterKind::rapl || want == MeterKind::automatic) {
    meter_ = make_rapl_meter(sysfs_, &why_rapl);
    if (meter_) return;
  }
  std::string why_service;
  if (want == MeterKind::service || want == MeterKind::automatic) {
    if (choose_service_meter(ps, want == MeterKind::service, &why_service)) return;
    if (want == MeterKind::service) return;
  }
  if (want == MeterKind::papi || (want == MeterKind::automatic && cfg.report)) {
    // auto asks PAPI only when someone will read the result (PAPI start-up costs ~10 ms).
    meter_ = make_papi_meter(&why_papi);
    if (meter_) return;
  }
  if (want == MeterKind::rapl)
    core::warn_once("meter", "rapl: " + why_rapl + "; energy is modelled");
  if (want == MeterKind::papi) {
    PapiEventSet probe;
    std::string why;
    if (probe.open({"perf::TASK-CLOCK"}, nullptr, &why)) {
      task_clock_meter_ = true;
      meter_note_ = why_papi + "; modelled power over CPU time measured by perf::TASK-CLOCK";
    } else {
      core::warn_once("meter", "papi: " + why_papi + "; energy is modelled");
    }
  }
  if (meter_note_.empty())
    meter_note_ = want == MeterKind::automatic && !why_rapl.empty() ? why_rapl : "";
  // A service that answered but gave no energy is worth saying; an absent
  // socket is the common case and would only add noise.
  if (want == MeterKind::automatic && service_ && !why_service.empty())
    meter_note_ += (meter_note_.empty() ? "" : "; ") + why_service;
}

void Platform::choose_thermal(const core::Config& cfg) {
  const PlatformSettings& ps = cfg.get<PlatformSettings>();
  const ThermalKind want = ps.thermal;
  if (want == ThermalKind::hwmon || want == ThermalKind::automatic) {
    std::string why;
    thermal_ = make_sensor_thermal(sysfs_, machine_.num_chips(), &why);
    if (thermal_) return;
    if (want == ThermalKind::hwmon)
      core::warn_once("thermal", "hwmon: " + why + "; temperatures are modelled");
    thermal_note_ = why;
  }
  const auto& rc = ps.rc;
  RcParams p{rc.air, rc.alpha, rc.beta, rc.gamma, rc.tau_s, {}};
  for (const auto& [chip, k] : ps.hotspots) {
    if (std::size_t(chip) >= p.hotspot.size()) p.hotspot.resize(std::size_t(chip) + 1, 0.0);
    p.hotspot[std::size_t(chip)] = k;
  }
  thermal_ = std::make_unique<RcThermal>(p, machine_.num_chips(), 0.0, core::now_ns());
}

std::vector<int> Platform::worker_cpus_of_chip(int chip) const {
  std::vector<int> out;
  for (int c : worker_cpu_)
    if (machine_.chip_of(c) == chip) out.push_back(c);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const std::vector<std::uint32_t>& Platform::pstates(int cpu) const {
  const auto& t = dvfs_->pstates(cpu);
  return t.empty() ? nominal_ : t;
}

std::uint32_t Platform::frequency(int cpu) const {
  const std::uint32_t f = dvfs_->frequency(cpu);
  return f ? f : nominal_.back();
}

bool Platform::set_core_frequency(int cpu, std::uint32_t khz) {
  return dvfs_->set_frequency(cpu, khz);
}

bool Platform::set_chip_frequency(int chip, std::uint32_t khz) {
  bool any = false, ok = true;
  std::vector<int> done_domains;
  for (const auto& pu : machine_.pus()) {
    if (pu.chip != chip) continue;
    const int d = dvfs_->domain_of(pu.cpu);
    if (d < 0 || std::find(done_domains.begin(), done_domains.end(), d) != done_domains.end())
      continue;
    done_domains.push_back(d);
    any = true;
    ok = dvfs_->set_frequency(pu.cpu, khz) && ok;
  }
  return any && ok;
}

void Platform::apply_start_frequency() {
  if (start_frequency_.empty() || !dvfs_->can_set()) return;
  for (int cpu : worker_cpu_) {
    const auto& t = dvfs_->pstates(cpu);
    if (t.empty()) continue;
    const std::uint32_t khz = start_frequency_ == "min" ? t.front()
                              : start_frequency_ == "max"
                                  ? t.back()
                                  : std::uint32_t(std::stod(start_frequency_) * 1e6 + 0.5);
    dvfs_->set_frequency(cpu, khz);
    dvfs_->take_stall_ns(cpu);  // the start is not a task's transition
  }
}

std::string Platform::describe() const {
  std::string s = "platform: machine " + machine_.describe() + "; dvfs " + dvfs_->describe();
  if (!dvfs_note_.empty()) s += " (" + dvfs_note_ + ")";
  s += "; meter " + std::string(meter_              ? meter_->name()
                                : task_clock_meter_ ? "model (perf::TASK-CLOCK)"
                                                    : "model");
  if (!meter_note_.empty() && !meter_) s += " (" + meter_note_ + ")";
  if (meter_ && !meter_->note().empty()) s += " (" + meter_->note() + ")";
  s += "; thermal " + std::string(thermal_->name());
  if (!thermal_note_.empty() && !thermal_->measured()) s += " (" + thermal_note_ + ")";
  s += "; counters " + std::string(counters_ ? "papi" : "none");
  return s;
}

}  // namespace joule::platform
