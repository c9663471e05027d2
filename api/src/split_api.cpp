// joule::work_splitter (joule/split.hpp): Cabrera et al.'s Splitter
// (scheduler/energy/splitter.hpp) over two devices, the host's cores and the
// card, fed with measured rates and the devices' power models, and
// (card_freq "auto") energy::PStateSearch choosing the card's P-state.
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>

#include "card_internal.hpp"
#include "device.hpp"
#include "joule/split.hpp"
#include "placement.hpp"
#include "pstate_search.hpp"
#include "runtime.hpp"
#include "splitter.hpp"

namespace joule {
namespace {

[[noreturn]] void invalid(const std::string& msg) {
  throw error(JOULE_ERR_INVALID, "joule::work_splitter: " + msg);
}

energy::Objective objective_of(const char* given) {
  const std::string n = given ? given : engine::Runtime::get().config().energy.splitter_objective;
  if (n == "energy") return energy::Objective::energy;
  if (n == "time") return energy::Objective::time;
  if (n == "edp") return energy::Objective::edp;
  invalid("unknown objective '" + n + "' (allowed: energy, time, edp)");
}

// JOULE_POWER_BUSY at its highest frequency and JOULE_POWER_IDLE, per worker.
device_power host_model(const core::Config& c) {
  const int workers = std::max(1, engine::Runtime::get().num_workers());
  double busy = 0, ghz = -1;
  for (const auto& [f, w] : c.platform.power_busy)
    if (f > ghz) ghz = f, busy = w;
  return {busy * workers, c.platform.power_idle * workers};
}

// JOULE_CARD_POWER: idle + per active core + per busy thread, all threads
// busy; the dynamic terms at the card's P-state ghz, (f/f_max)^3.
device_power card_model(const core::Config::Card& c, double ghz) {
  const offload::CardTopology topo = offload::CardTopology::from_synthetic(c.topology);
  const int threads = c.threads > 0 ? c.threads : topo.pu_count();
  std::set<int> cores;
  for (const offload::PuSlot& s :
       offload::place_threads(topo, threads, offload::parse_placement(c.affinity)))
    cores.insert(s.core);
  const double s = c.freqs.empty() || ghz <= 0 ? 1.0 : ghz / c.freqs.front();
  return {
      c.power_idle + (c.power_core * double(cores.size()) + c.power_thread * threads) * s * s * s,
      c.power_idle};
}

device_power pick(const device_power& given, const device_power& model, const char* who) {
  if (given.busy_watts < 0 || given.idle_watts < 0)
    invalid(std::string("negative power for the ") + who);
  return given.busy_watts > 0 ? given : model;
}

bool choose_card_freq(const char* given, const core::Config& cfg) {
  if (!given) return cfg.card.freq_auto;
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

struct work_splitter::impl {
  impl(energy::Objective obj, const energy::SplitterOptions& so, device_power host,
       device_power card, double ghz)
      : splitter(2, obj, so),
        dev{{0, host.busy_watts, host.idle_watts}, {0, card.busy_watts, card.idle_watts}},
        objective(obj),
        options(so),
        f0(ghz),
        card0(card) {}

  energy::Splitter splitter;
  std::vector<energy::DeviceSample> dev;  // [0] host, [1] card; rates in shares per second
  energy::Objective objective;
  energy::SplitterOptions options;
  // Choosing the card's P-state (card_freq "auto").
  std::vector<double> freqs;  // the card's P-states, highest first
  double f0 = 0;              // the P-state found at construction, restored at the end
  device_power card0;         // the card's power at f0
  std::optional<energy::PStateSearch> search;
  std::vector<double> kept_split;  // the converged split and card sample at the kept level
  energy::DeviceSample kept_card;
  double host_rate_ref = 0;     // the host's rate when the search stopped
  std::int64_t last_units = 0;  // the iteration size the search measured

  double freq() const { return search ? freqs[std::size_t(search->level())] : f0; }
  double card_busy_at(double ghz) const;
  void set_freq(double ghz);
  void observe(std::int64_t units, const double secs[2]);
  void apply(energy::PStateSearch::Move m, double from_ghz);
};

// The card's busy power at ghz: its dynamic part scales as the card model's.
double work_splitter::impl::card_busy_at(double ghz) const {
  const double r = ghz / f0, dyn = card0.busy_watts - card0.idle_watts;
  return card0.idle_watts + dyn * r * r * r;
}

void work_splitter::impl::set_freq(double ghz) {
  if (ghz != card_status().freq_ghz) set_card_frequency(ghz);
  dev[1].busy_watts = card_busy_at(ghz);
}

// One step of the P-state search after an iteration (the splitter has
// taken its rates already).
void work_splitter::impl::observe(std::int64_t units, const double secs[2]) {
  const bool stopped = search->settled();
  if (stopped &&
      (units != last_units || dev[0].rate > 2 * host_rate_ref || dev[0].rate < host_rate_ref / 2))
    search->restart();  // the workload changed: what was best may not be
  last_units = units;
  const double from = freq();
  const energy::PStateSearch::Move m =
      search->next(measured(objective, dev, secs, double(units)), splitter.converged());
  apply(m, from);
  if (!stopped && search->settled()) host_rate_ref = dev[0].rate;
}

void work_splitter::impl::apply(energy::PStateSearch::Move m, double from_ghz) {
  using Move = energy::PStateSearch::Move;
  if (m == Move::trial) {
    // A starting guess for the new P-state: the card's speed follows f, its
    // dynamic power f^3. Measured only if the guess promises a gain.
    std::vector<energy::DeviceSample> at = dev;
    at[1].rate *= freq() / from_ghz;
    at[1].busy_watts = card_busy_at(freq());
    const std::vector<double> guess =
        energy::converged_split(objective, at, splitter.split(), options);
    if (energy::split_estimate(objective, guess, at) >=
        energy::split_estimate(objective, splitter.split(), dev) * (1 - kMinGain)) {
      search->reject_trial();  // back at the kept level: nothing was changed yet
      return;
    }
    kept_split = splitter.split();
    kept_card = dev[1];
    set_freq(freq());
    dev[1] = at[1];
    splitter.set_split(guess, false);
  } else if (m == Move::back) {
    set_freq(freq());
    dev[1] = kept_card;
    splitter.set_split(kept_split, true);
  }
}

work_splitter::work_splitter(const split_options& opt) {
  if (opt.delta <= 0 || opt.delta_min <= 0 || opt.delta_min > opt.delta)
    invalid("need 0 < delta_min <= delta");
  const core::Config& cfg = engine::Runtime::get().config();
  energy::SplitterOptions so;
  so.delta = opt.delta;
  so.delta_min = opt.delta_min;
  const device_power host = pick(opt.host, host_model(cfg), "host");
  const offload::Device* dev = api::current_card();  // an attached card has the daemon's settings
  const core::Config::Card& cc = dev && dev->card_config() ? *dev->card_config() : cfg.card;
  const double ghz = dev ? dev->frequency() : 0;
  const device_power card =
      pick(opt.card, cfg.card.mode == "none" ? device_power{} : card_model(cc, ghz), "card");
  p_ = std::make_unique<impl>(objective_of(opt.objective), so, host, card, ghz);
  if (!choose_card_freq(opt.card_freq, cfg) || !dev || ghz <= 0) return;
  p_->freqs = dev->frequencies();
  const auto at = std::find(p_->freqs.begin(), p_->freqs.end(), ghz);
  if (p_->freqs.size() > 1 && at != p_->freqs.end())
    p_->search.emplace(int(p_->freqs.size()), int(at - p_->freqs.begin()));
}

work_splitter::~work_splitter() {
  if (!p_->search || p_->freq() == p_->f0) return;
  try {  // never leave the card at a P-state the splitter chose for its work
    set_card_frequency(p_->f0);
  } catch (const std::exception&) {
  }
}

double work_splitter::card_share() const { return p_->splitter.split()[1]; }

std::int64_t work_splitter::cut(std::int64_t n) const {
  const double host = p_->splitter.split()[0] * double(n);
  return std::clamp<std::int64_t>(std::int64_t(host + 0.5), 0, n);
}

bool work_splitter::converged() const { return p_->splitter.converged(); }

device_power work_splitter::host_power() const {
  return {p_->dev[0].busy_watts, p_->dev[0].idle_watts};
}
device_power work_splitter::card_power() const {
  return {p_->dev[1].busy_watts, p_->dev[1].idle_watts};
}

void work_splitter::record(std::int64_t host_units, double host_s, std::int64_t card_units,
                           double card_s) {
  const double total = double(host_units + card_units);
  if (total <= 0) return;
  const std::int64_t units[2] = {host_units, card_units};
  const double secs[2] = {host_s, card_s};
  for (int i = 0; i < 2; ++i)
    if (units[i] > 0 && secs[i] > 0)
      p_->dev[std::size_t(i)].rate = double(units[i]) / total / secs[i];
  // Until both devices have a rate the split cannot be judged: stay.
  if (p_->dev[0].rate <= 0 || p_->dev[1].rate <= 0) return;
  p_->splitter.next(p_->dev);
  if (p_->search) p_->observe(host_units + card_units, secs);
}

double work_splitter::card_freq_ghz() const { return p_->freq(); }

bool work_splitter::card_freq_settled() const { return !p_->search || p_->search->settled(); }

}  // namespace joule
