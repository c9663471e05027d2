// Backend selection (auto probing, fallbacks with one warning), and the
// run's start and end.
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

Platform::Platform(const core::Config& cfg) : Platform(cfg, cfg.get<PlatformSettings>()) {}

Platform::Platform(const core::Config& cfg, const PlatformSettings& ps)
    : sysfs_(ps.sysfs_root),
      machine_(load_machine(cfg)),
      model_(ps.power_busy, ps.power_idle, ps.power_uncore),
      freq_(machine_, ps.pstate_table()),
      workers_(machine_, freq_, counters_, {ps.memory_bound, ps.memory_bound_default}),
      sensors_(model_, workers_, counters_, machine_.num_chips()),
      start_frequency_(ps.dvfs_start) {
  choose_dvfs(cfg);
  choose_meter(cfg);
  choose_thermal(cfg);
  counters_ = Counters(ps.counters == CounterKind::papi, ps.counter_events, task_clock_meter_);
  active_ = cfg.report || freq_.can_set() || counters_.on() || ps.meter != MeterKind::automatic ||
            ps.thermal != ThermalKind::automatic;
}

void Platform::set_listener(std::unique_ptr<PlatformListener> l) {
  listener_ = std::move(l);
  listener_live_ = listener_ && listener_->live();
  workers_.attach(listener_.get(), listener_live_);
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
      freq_.set_backend(std::move(cf));
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
    freq_.set_backend(
        make_emulated_dvfs(groups, freq_.nominal(), std::uint64_t(p.dvfs_latency_us) * 1000));
    return;
  }
  freq_.set_backend(make_none_dvfs());
}

void Platform::choose_meter(const core::Config& cfg) {
  const auto& ps = cfg.get<PlatformSettings>();
  const MeterKind want = ps.meter;
  std::string why_rapl, why_papi;
  if (want == MeterKind::rapl || want == MeterKind::automatic) {
    if (auto m = make_rapl_meter(sysfs_, &why_rapl)) {
      sensors_.set_meter(std::move(m));
      return;
    }
  }
  std::string why_service;
  if (want == MeterKind::service || want == MeterKind::automatic) {
    if (choose_service_meter(ps, want == MeterKind::service, &why_service)) return;
    if (want == MeterKind::service) return;
  }
  if (want == MeterKind::papi || (want == MeterKind::automatic && cfg.report)) {
    // auto asks PAPI only when someone will read the result (PAPI start-up costs ~10 ms).
    if (auto m = make_papi_meter(&why_papi)) {
      sensors_.set_meter(std::move(m));
      return;
    }
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
    if (auto t = make_sensor_thermal(sysfs_, machine_.num_chips(), &why)) {
      sensors_.set_thermal(std::move(t));
      return;
    }
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
  sensors_.set_thermal(std::make_unique<RcThermal>(p, machine_.num_chips(), 0.0, core::now_ns()));
}

std::string Platform::describe() const {
  const EnergyMeter* meter = sensors_.meter();
  const Thermal& thermal = sensors_.thermal();
  std::string s =
      "platform: machine " + machine_.describe() + "; dvfs " + freq_.backend().describe();
  if (!dvfs_note_.empty()) s += " (" + dvfs_note_ + ")";
  s += "; meter " + std::string(meter               ? meter->name()
                                : task_clock_meter_ ? "model (perf::TASK-CLOCK)"
                                                    : "model");
  if (!meter_note_.empty() && !meter) s += " (" + meter_note_ + ")";
  if (meter && !meter->note().empty()) s += " (" + meter->note() + ")";
  s += "; thermal " + std::string(thermal.name());
  if (!thermal_note_.empty() && !thermal.measured()) s += " (" + thermal_note_ + ")";
  s += "; counters " + std::string(counters_.on() ? "papi" : "none");
  return s;
}

// The order matters: the listener begins after the start frequency and
// before residency is reset; the meter starts last.
void Platform::begin(const core::RunInfo& run) {
  const std::uint64_t start = core::now_ns();
  sensors_.reset(start);
  workers_.begin(run, start);
  workers_.trace_cpus();
  freq_.apply_start(start_frequency_, workers_.cpus());
  if (listener_) listener_->begin(run, start);
  freq_.backend().reset_residency(start);
  sensors_.start();
  set_current_platform(this);
}

void Platform::iteration(std::uint64_t iteration, std::uint64_t now) {
  sensors_.periodic(now);
  if (listener_live_) listener_->iteration(iteration, now);
}

void Platform::mpi_enter(int worker) {
  if (listener_ && workers_.has_slot(worker)) listener_->mpi_enter(worker);
}

void Platform::mpi_leave(int worker) {
  if (listener_ && workers_.has_slot(worker)) listener_->mpi_leave(worker);
}

void Platform::end() {
  const std::uint64_t now = core::now_ns();
  sensors_.finish(now);
  if (current_platform() == this) set_current_platform(nullptr);
  if (listener_) listener_->end(now);
  freq_.restore();
}

}  // namespace joule::platform
