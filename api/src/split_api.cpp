// joule::work_splitter (joule/split.hpp): seed-003's Splitter
// (scheduler/energy/splitter.hpp) over two devices, the host's cores and the
// card, fed with measured rates and the devices' power models.
#include <algorithm>
#include <set>
#include <string>

#include "card_internal.hpp"
#include "device.hpp"
#include "joule/split.hpp"
#include "placement.hpp"
#include "runtime.hpp"
#include "splitter.hpp"

namespace joule {
namespace {

[[noreturn]] void invalid(const std::string& msg) {
  throw error(JOULE_ERR_INVALID, "joule::work_splitter: " + msg);
}

energy::Objective objective_of(const char* given) {
  const std::string n = given ? given : rt::Runtime::get().config().energy.splitter_objective;
  if (n == "energy") return energy::Objective::energy;
  if (n == "time") return energy::Objective::time;
  if (n == "edp") return energy::Objective::edp;
  invalid("unknown objective '" + n + "' (allowed: energy, time, edp)");
}

// JOULE_POWER_BUSY at its highest frequency and JOULE_POWER_IDLE, per worker.
device_power host_model(const rt::Config& c) {
  const int workers = std::max(1, rt::Runtime::get().num_workers());
  double busy = 0, ghz = -1;
  for (const auto& [f, w] : c.platform.power_busy)
    if (f > ghz) ghz = f, busy = w;
  return {busy * workers, c.platform.power_idle * workers};
}

// JOULE_CARD_POWER: idle + per active core + per busy thread, all threads
// busy; the dynamic terms at the card's P-state ghz, (f/f_max)^3.
device_power card_model(const rt::Config::Card& c, double ghz) {
  const offload::CardTopology topo = offload::CardTopology::from_synthetic(c.topology);
  const int threads = c.threads > 0 ? c.threads : topo.pu_count();
  std::set<int> cores;
  for (const offload::PuSlot& s :
       offload::place_threads(topo, threads, {offload::parse_affinity(c.affinity), 0, 0}))
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

}  // namespace

struct work_splitter::impl {
  energy::Splitter splitter;
  std::vector<energy::DeviceSample> dev;  // [0] host, [1] card; rates in shares per second
};

work_splitter::work_splitter(const split_options& opt) {
  if (opt.delta <= 0 || opt.delta_min <= 0 || opt.delta_min > opt.delta)
    invalid("need 0 < delta_min <= delta");
  const rt::Config& cfg = rt::Runtime::get().config();
  energy::SplitterOptions so;
  so.delta = opt.delta;
  so.delta_min = opt.delta_min;
  const device_power host = pick(opt.host, host_model(cfg), "host");
  const offload::Device* dev = rt::current_card();  // an attached card has the daemon's settings
  const rt::Config::Card& cc = dev && dev->card_config() ? *dev->card_config() : cfg.card;
  const double ghz = dev ? dev->frequency() : 0;
  const device_power card =
      pick(opt.card, cfg.card.mode == "none" ? device_power{} : card_model(cc, ghz), "card");
  p_.reset(
      new impl{energy::Splitter(2, objective_of(opt.objective), so),
               {{0, host.busy_watts, host.idle_watts}, {0, card.busy_watts, card.idle_watts}}});
}

work_splitter::~work_splitter() = default;

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
  if (p_->dev[0].rate > 0 && p_->dev[1].rate > 0) p_->splitter.next(p_->dev);
}

}  // namespace joule
