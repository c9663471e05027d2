// The work splitter over the host and the card or a GPU: the devices' power
// models and measured energy, the splitter's steps and the search for the
// card's P-state or the GPU's SM clock.
#include "split_controller.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "card_tasks.hpp"
#include "energy_config.hpp"
#include "gpu_devices.hpp"
#include "placement.hpp"
#include "platform_settings.hpp"
#include "runtime.hpp"

namespace joule::card_tasks {
namespace {

[[noreturn]] void invalid(const std::string& msg) {
  throw error(JOULE_ERR_INVALID, "joule::work_splitter: " + msg);
}

energy::Objective objective_of(const char* given) {
  const core::Config& cfg = engine::Runtime::get().config();
  if (!given) return energy::options_from_config(cfg).objective;
  for (const auto& [n, o] : energy::kObjectives)
    if (std::string_view(given) == n) return o;
  invalid("unknown objective '" + std::string(given) + "' (allowed: energy, time, edp)");
}

// JOULE_POWER_BUSY at its highest frequency and JOULE_POWER_IDLE, per worker.
DevicePower host_model(const core::Config& c) {
  const int workers = std::max(1, engine::Runtime::get().workers().owned());
  double busy = 0, ghz = -1;
  const platform::PlatformSettings& p = c.get<platform::PlatformSettings>();
  for (const auto& [f, w] : p.power_busy)
    if (f > ghz) ghz = f, busy = w;
  return {busy * workers, p.power_idle * workers};
}

// JOULE_CARD_POWER: idle + per active core + per busy thread, all threads
// busy; the dynamic terms at the card's P-state ghz, (f/f_max)^3.
DevicePower card_model(const offload::CardSettings& c, double ghz) {
  const card_affinity::CardTopology topo = card_affinity::CardTopology::from_synthetic(c.topology);
  const int threads = c.threads > 0 ? c.threads : topo.pu_count();
  std::set<int> cores;
  for (const card_affinity::PuSlot& s :
       card_affinity::place_threads(topo, threads, card_affinity::parse_placement(c.affinity)))
    cores.insert(s.core);
  const double s = c.freqs.empty() || ghz <= 0 ? 1.0 : ghz / c.freqs.front();
  return {
      c.power_idle + (c.power_core * double(cores.size()) + c.power_thread * threads) * s * s * s,
      c.power_idle};
}

DevicePower pick(const DevicePower& given, const DevicePower& model, const char* who) {
  if (given.busy_watts < 0 || given.idle_watts < 0)
    invalid(std::string("negative power for the ") + who);
  return given.busy_watts > 0 ? given : model;
}

// A GPU's powers before anything is measured: a data-centre GPU's order of
// magnitude (an H100 PCIe: 350 W board limit, 50-70 W idle). NVML's
// measured energy replaces them after the first iteration.
constexpr DevicePower kGpuGuess{300, 60};

// The meter of GPU device_num: the GPU registry's (gpu_devices.hpp), which
// opens the GPUs if no CUDA task has yet.
std::unique_ptr<cuda::GpuMeter> gpu_meter_for(const SplitSettings& s) {
  std::string why;
  const int n = open_gpus(&why);
  if (n == 0) invalid("no CUDA device: " + why);
  if (s.device_num < 0 || s.device_num >= n)
    invalid("device_num " + std::to_string(s.device_num) + " is not a GPU (allowed: 0.." +
            std::to_string(n - 1) + ")");
  return borrow_gpu_meter(*open_gpu(s.device_num).clocks);
}

bool choose_card_freq(const char* given, const core::Config& cfg) {
  if (!given) return cfg.get<offload::CardSettings>().freq_auto;
  const std::string v = given;
  if (v == "auto" || v == "fixed") return v == "auto";
  invalid("unknown card_freq '" + v + "' (allowed: auto, fixed)");
}

// A P-state is measured only when the splitter's estimate promises this
// much (PStateSearchOptions::min_gain judges the measurement).
constexpr double kMinGain = 0.02;

// The measured objective of one iteration per unit of work: its seconds
// (the slower device's), its joules (each device busy for its seconds and
// idle for the rest), or their product.
double measured(energy::Objective obj, const std::vector<energy::DeviceSample>& dev,
                const double secs[2], double units) {
  const double t = std::max(secs[0], secs[1]);
  double e = 0;
  for (std::size_t i = 0; i < 2; ++i)
    e += dev[i].busy_watts * secs[i] + dev[i].idle_watts * (t - secs[i]);
  if (obj == energy::Objective::time) return t / units;
  return obj == energy::Objective::energy ? e / units : (e / units) * (t / units);
}

}  // namespace

// What the constructor decides before the splitter exists, in the order
// its errors are reported.
struct SplitController::Plan {
  energy::Objective objective{};
  energy::SplitterOptions options;
  DevicePower host, card;
  double ghz = 0;
  const offload::Device* dev = nullptr;
  bool search = false;  // choose the card's P-state (the GPU's SM clock)
  bool gpu = false;
  double share = -1;
};

SplitController::Plan SplitController::make_plan(const SplitSettings& s, cuda::GpuMeter* gpu) {
  if (s.delta <= 0 || s.delta_min <= 0 || s.delta_min > s.delta)
    invalid("need 0 < delta_min <= delta");
  if (s.share > 1) invalid("share " + std::to_string(s.share) + " past 1 (allowed: 0..1, or < 0)");
  const core::Config& cfg = engine::Runtime::get().config();
  Plan p;
  p.options.delta = s.delta;
  p.options.delta_min = s.delta_min;
  p.host = pick(s.host, host_model(cfg), "host");
  p.gpu = gpu != nullptr;
  if (p.gpu) {
    p.ghz = gpu->sm_clock_mhz() / 1000.0;
    p.card = pick(s.card, kGpuGuess, "GPU");
  } else {
    p.dev = current_card();  // an attached card has the daemon's settings
    const offload::CardSettings& cc =
        p.dev && p.dev->card_config() ? *p.dev->card_config() : cfg.get<offload::CardSettings>();
    p.ghz = p.dev ? p.dev->frequency() : 0;
    p.card = pick(s.card,
                  cfg.get<offload::CardSettings>().mode == offload::CardMode::none
                      ? DevicePower{}
                      : card_model(cc, p.ghz),
                  "card");
  }
  p.objective = objective_of(s.objective);
  p.search = choose_card_freq(s.card_freq, cfg) && p.ghz > 0 && (p.dev || p.gpu) && s.share < 0;
  p.share = s.share;
  return p;
}

SplitController::SplitController(const SplitSettings& s)
    : SplitController(s, s.gpu ? gpu_meter_for(s) : nullptr) {}

SplitController::SplitController(const SplitSettings& s, std::unique_ptr<cuda::GpuMeter> gpu)
    : SplitController(make_plan(s, gpu.get()), std::move(gpu)) {}

SplitController::SplitController(const Plan& p, std::unique_ptr<cuda::GpuMeter>&& gpu)
    : splitter_(2, p.objective, p.options),
      dev_{{0, p.host.busy_watts, p.host.idle_watts}, {0, p.card.busy_watts, p.card.idle_watts}},
      objective_(p.objective),
      options_(p.options),
      f0_(p.ghz),
      card0_(p.card),
      meters_(std::move(gpu)),
      fit_{PowerFit({p.host.busy_watts, p.host.idle_watts}),
           PowerFit({p.card.busy_watts, p.card.idle_watts})},
      gpu_(p.gpu) {
  if (gpu_ && !p.search) clocks_note_ = "card_freq fixed";
  if (gpu_ && p.ghz <= 0) clocks_note_ = "NVML reads no SM clock";
  if (p.search) start_search(p.ghz, p.dev);
  if (p.share >= 0) {  // a baseline: the split never moves
    splitter_.set_split({1 - p.share, p.share}, true);
    fixed_ = true;
  }
}

SplitController::~SplitController() {
  if (cuda::GpuMeter* g = meters_.gpu()) {
    g->restore();  // undoes the lock start_search took and any clock the search chose
    return;
  }
  if (!search_ || freq() == f0_) return;
  try {  // never leave the card at a P-state the splitter chose for its work
    set_card_frequency(f0_);
  } catch (const std::exception&) {
  }
}

// The card's busy power at ghz: its dynamic part scales as the card model's.
double SplitController::card_busy_at(double ghz) const {
  const double r = ghz / f0_, dyn = card0_.busy_watts - card0_.idle_watts;
  return card0_.idle_watts + dyn * r * r * r;
}

void SplitController::set_freq(double ghz) {
  if (cuda::GpuMeter* g = meters_.gpu()) {
    g->set_sm_clock_mhz(int(std::lround(ghz * 1000)));  // accepted once, at the search's start
  } else {
    const std::optional<CardStatus> now = card_status();
    if (ghz != (now ? now->freq_ghz : 0)) set_card_frequency(ghz);
  }
  dev_[1].busy_watts = card_busy_at(ghz);
  fit_[1].reset({dev_[1].busy_watts, dev_[1].idle_watts});  // measured at the old clock
}

// One step of the P-state search after an iteration (the splitter has
// taken its rates already).
void SplitController::observe(std::int64_t units, const double secs[2]) {
  const bool stopped = search_->settled();
  if (stopped && (units != last_units_ || dev_[0].rate > 2 * host_rate_ref_ ||
                  dev_[0].rate < host_rate_ref_ / 2))
    search_->restart();  // the workload changed: what was best may not be
  last_units_ = units;
  const double from = freq();
  const energy::PStateSearch::Move m =
      search_->next(measured(objective_, dev_, secs, double(units)), splitter_.converged());
  apply(m, from);
  if (!stopped && search_->settled()) host_rate_ref_ = dev_[0].rate;
}

void SplitController::apply(energy::PStateSearch::Move m, double from_ghz) {
  using Move = energy::PStateSearch::Move;
  if (m == Move::trial) {
    // A starting guess for the new P-state: the card's speed follows f, its
    // dynamic power f^3. Measured only if the guess promises a gain.
    std::vector<energy::DeviceSample> at = dev_;
    at[1].rate *= freq() / from_ghz;
    at[1].busy_watts = card_busy_at(freq());
    const std::vector<double> guess =
        energy::converged_split(objective_, at, splitter_.split(), options_);
    if (energy::split_estimate(objective_, guess, at) >=
        energy::split_estimate(objective_, splitter_.split(), dev_) * (1 - kMinGain)) {
      search_->reject_trial();  // back at the kept level: nothing was changed yet
      return;
    }
    kept_split_ = splitter_.split();
    kept_card_ = dev_[1];
    set_freq(freq());
    dev_[1] = at[1];
    splitter_.set_split(guess, false);
  } else if (m == Move::back) {
    set_freq(freq());
    dev_[1] = kept_card_;
    splitter_.set_split(kept_split_, true);
  }
}

double SplitController::card_share() const { return splitter_.split()[1]; }

std::int64_t SplitController::cut(std::int64_t n) const {
  const double host = splitter_.split()[0] * double(n);
  return std::clamp<std::int64_t>(std::int64_t(host + 0.5), 0, n);
}

bool SplitController::converged() const { return splitter_.converged(); }

DevicePower SplitController::host_power() const { return {dev_[0].busy_watts, dev_[0].idle_watts}; }
DevicePower SplitController::card_power() const { return {dev_[1].busy_watts, dev_[1].idle_watts}; }

void SplitController::record(std::int64_t host_units, double host_s, std::int64_t card_units,
                             double card_s) {
  const double total = double(host_units + card_units);
  if (total <= 0) return;
  const std::int64_t units[2] = {host_units, card_units};
  const double secs[2] = {host_s, card_s};
  fit(secs);
  for (int i = 0; i < 2; ++i)
    if (units[i] > 0 && secs[i] > 0) dev_[std::size_t(i)].rate = double(units[i]) / total / secs[i];
  // Until both devices have a rate the split cannot be judged: stay.
  if (fixed_ || dev_[0].rate <= 0 || dev_[1].rate <= 0) return;
  splitter_.next(dev_);
  if (search_) observe(host_units + card_units, secs);
}

double SplitController::card_freq_ghz() const { return freq(); }

bool SplitController::card_freq_settled() const { return !search_ || search_->settled(); }

}  // namespace joule::card_tasks
