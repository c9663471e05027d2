#include "time_guard.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace joule::energy {
namespace {

int top_of(const DomainView& d) { return std::max(0, int(d.pstates.size()) - 1); }

bool all_top(const Observation& obs, const std::vector<int>& levels) {
  for (std::size_t i = 0; i < obs.domains.size() && i < levels.size(); ++i)
    if (levels[i] < top_of(obs.domains[i])) return false;
  return true;
}

std::vector<int> current_levels(const Observation& obs) {
  std::vector<int> out;
  for (const auto& d : obs.domains) out.push_back(d.level);
  return out;
}

struct Mean {
  double mean = 0, se = 0;
  int n = 0;
};

// Mean and standard error of the mean of the values `get` gives (those >= 0).
template <class C, class F>
Mean mean_of(const C& units, F get) {
  double sum = 0, sq = 0;
  int n = 0;
  for (const auto& u : units) {
    const double x = get(u);
    if (x < 0) continue;
    sum += x, sq += x * x, ++n;
  }
  if (n == 0) return {};
  const double mean = sum / n, var = n > 1 ? std::max(0.0, (sq - sum * mean) / (n - 1)) : 0;
  return {mean, std::sqrt(var / n), n};
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = std::size_t(std::ceil(q * double(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

void TimeGuard::reset(bool periodic) {
  periodic_ = periodic;
  baseline_ = true;
  last_iteration_ = 0;
  policy_level_.clear(), in_effect_.clear(), floor_.clear(), top_.clear();
  base_.clear(), recent_.clear(), spread_.clear();
  learned_ = 0;
  hold_left_ = hold_ = trips_in_row_ = calm_units_ = since_probe_ = taking_ = baseline_calls_ = 0;
  probe_next_ = probing_ = slack_lost_ = false;
  first_ = true;
  critical_.clear();
}

Decision TimeGuard::filter(const Observation& obs, Decision d) {
  action_ = GuardAction::none;
  const std::size_t n = obs.domains.size();
  if (policy_level_.size() != n) {
    policy_level_ = in_effect_ = current_levels(obs);
    floor_.assign(n, -1);
    top_.clear();
    for (const auto& dom : obs.domains) top_.push_back(top_of(dom));
  }
  Unit u;
  if (first_) {  // its window began before this mode did (a policy switch, the start)
    first_ = false;
    last_iteration_ = obs.iteration;
  } else if (measure(obs, u)) {
    account(u);
    update_noise();
  }
  if (baseline_ && ++baseline_calls_ >= 2 * opt_.baseline_units) end_baseline_early();
  if (d.domain_level.size() == n) policy_level_ = d.domain_level;
  const std::vector<int> out = guarded_levels(obs);
  if (probe_next_) probe_next_ = false, probing_ = true;
  bool raised = false;
  for (std::size_t i = 0; i < n; ++i) raised |= out[i] > policy_level_[i];
  in_effect_ = out;
  stats_.margin = std::min(opt_.max_margin, stats_.noise + learned_);
  stats_.max_margin = std::max(stats_.max_margin, stats_.margin);
  if (d.domain_level.empty() && out == current_levels(obs)) return d;
  if (raised && !baseline_ && !probing_) ++stats_.held;
  d.domain_level = out;
  if (d.kind == Decision::Kind::none) d.kind = Decision::Kind::dvfs;
  if (raised) {
    char text[96];
    std::snprintf(text, sizeof text, "time guard: %s, margin %.0f %%",
                  baseline_ || probing_ ? "baseline at the top P-states"
                  : holding()           ? "holding after a loss over budget"
                                        : "noise margin",
                  100 * stats_.margin);
    d.why += (d.why.empty() ? "" : "; ") + std::string(text);
  }
  return d;
}

// The unit that ran since the last call; false when there is none to judge
// (the first call of a mode, or a window with almost no work).
bool TimeGuard::measure(const Observation& obs, Unit& u) {
  u.at_top = all_top(obs, in_effect_) && all_top(obs, current_levels(obs));
  if (!periodic_) {
    const std::uint64_t it = obs.iteration;
    const std::uint64_t k = it > last_iteration_ ? it - last_iteration_ : 1;
    last_iteration_ = it;
    if (obs.window_s <= 0) return false;
    u.cost = obs.window_s / double(k);
    for (const auto& c : obs.cores)
      if (!c.parked) u.critical = std::max(u.critical, c.work_s / double(k));
    u.late = lateness(obs, in_effect_);
    u.anchored = anchored(obs, u);
    return true;
  }
  double work = 0;
  for (const auto& c : obs.cores) work += c.work_s;
  if (obs.window_s <= 0 || work < 0.05 * obs.window_s) return false;
  u.cost = obs.window_s / work;
  u.anchored = anchored(obs, u);
  return true;
}

// How much later the slowed cores finished than the cores at the top, as a
// share of the window: what the slowing itself cost, with the noise that
// hit every core alike cancelled. -1 when no core ran at the top, or none
// was slowed and busy.
double TimeGuard::lateness(const Observation& obs, const std::vector<int>& levels) {
  double slowed = -1, top = -1;
  for (const auto& c : obs.cores) {
    if (c.parked || std::size_t(c.domain) >= levels.size()) continue;
    const bool at_top = levels[std::size_t(c.domain)] >= top_of(obs.domains[std::size_t(c.domain)]);
    double& m = at_top ? top : slowed;
    m = std::max(m, c.busy_s);
  }
  if (top < 0 || slowed < 0 || obs.window_s <= 0) return -1;
  return std::max(0.0, slowed - top) / obs.window_s;
}

// The median critical work of the last phase_units units against the
// baseline's: a median, so that a few disturbed units do not count.
bool TimeGuard::phase_changed(const Unit& u) {
  critical_.push_back(u.critical);
  if (int(critical_.size()) > opt_.phase_units) critical_.pop_front();
  if (int(critical_.size()) < opt_.phase_units || base_critical_ <= 0) return false;
  const double now = quantile({critical_.begin(), critical_.end()}, 0.5);
  return std::fabs(now / base_critical_ - 1) > opt_.phase_change;
}

// A trip's raised levels are held hold_ units, then eased down one P-state
// per unit (straight back to the policy's level would fall into the same
// loss at once).
void TimeGuard::ease_floors() {
  if (hold_left_ > 0) return void(--hold_left_);
  bool any = false;
  for (int& f : floor_) {
    if (f < 0) continue;
    f = f > 0 ? f - 1 : -1;
    any = true;
  }
  if (!any) return;
  if (std::all_of(floor_.begin(), floor_.end(), [](int f) { return f < 0; })) {
    recent_.clear();  // the policy's own levels are judged afresh
    action_ = GuardAction::released;
  }
}

void TimeGuard::account(const Unit& u) {
  ++stats_.units;
  spread_.push_back(u.cost);
  if (int(spread_.size()) > opt_.noise_units) spread_.pop_front();
  if (baseline_) {
    const bool sample = u.at_top || u.anchored;
    if (sample) base_.push_back(u), ++taking_;
    if (int(base_.size()) > opt_.baseline_pool) base_.pop_front();
    if (!sample) watch_start(u);
    if (taking_ >= opt_.baseline_units) take_baseline();
    return;
  }
  if (probing_) return add_probe(u);
  if (opt_.probe_units > 0 && ++since_probe_ >= opt_.probe_units)
    since_probe_ = 0, probe_next_ = true;
  run_cost_ += u.cost;
  run_base_ += stats_.baseline_s;
  stats_.run_loss = run_base_ > 0 ? run_cost_ / run_base_ - 1 : 0;
  recent_.push_back(u);
  if (int(recent_.size()) > opt_.loss_units) recent_.pop_front();
  ease_floors();
  if (!periodic_ && phase_changed(u)) return start_baseline(false, true);
  check_loss();
}

// The loss over the last loss_units units: a trip when it exceeds the
// budget by more than its standard error, a fresh baseline when nothing
// was slowed (the program itself got slower); well inside the budget, the
// learned margin decays a little.
void TimeGuard::check_loss() {
  if (int(recent_.size()) < opt_.loss_units || base_.empty()) return;
  const Mean r = mean_of(recent_, [](const Unit& u) { return u.cost; });
  const Mean b = mean_of(base_, [](const Unit& u) { return u.cost; });
  const Mean late = mean_of(recent_, [](const Unit& u) { return u.late; });
  if (b.mean <= 0) return;
  stats_.loss = r.mean / b.mean - 1;
  const double se = std::sqrt(r.se * r.se + b.se * b.se) / b.mean;
  const bool over =
      stats_.loss - 2 * se > opt_.budget || (late.n > 0 && late.mean - late.se > opt_.budget);
  if (over) {
    bool top = true;
    for (const auto& u : recent_) top &= u.at_top;
    return top ? start_baseline(false) : trip();
  }
  if (stats_.loss > opt_.budget / 2 || late.mean > opt_.budget / 2) return;
  if (holding()) return;  // a raised level's calm says nothing of the policy's
  learned_ = std::max(0.0, learned_ - opt_.margin_decay);
  if (++calm_units_ >= 4 * std::max(hold_, opt_.hold_units)) trips_in_row_ = 0;
}

// Windows with almost no work measure nothing: a program that idles would
// keep every domain at the top for ever. After twice the units a baseline
// needs, it is taken from what there is, or the policy goes on without one
// (probes fill the pool once units come).
void TimeGuard::end_baseline_early() {
  if (!base_.empty()) return take_baseline();
  baseline_ = false;
  baseline_calls_ = 0;
}

void TimeGuard::take_baseline() {
  double cost = 0;
  std::vector<double> critical;
  for (const auto& u : base_) cost += u.cost, critical.push_back(u.critical);
  stats_.baseline_s = cost / double(base_.size());
  base_critical_ = quantile(std::move(critical), 0.5);
  critical_.clear();
  taking_ = baseline_calls_ = 0;
  recent_.clear();
  baseline_ = false;
  since_probe_ = 0;
  ++stats_.rebases;
  action_ = GuardAction::baseline_taken;
}

// A unit run at the top between the policy's: one more baseline sample.
void TimeGuard::add_probe(const Unit& u) {
  probing_ = false;
  if (!u.at_top) return;
  base_.push_back(u);
  if (int(base_.size()) > opt_.baseline_pool) base_.pop_front();
  drop_anchored();
  double cost = 0;
  for (const auto& b : base_) cost += b.cost;
  stats_.baseline_s = cost / double(base_.size());
  ++stats_.probes;
}

void TimeGuard::start_baseline(bool keep, bool phase) {
  baseline_ = true;
  taking_ = baseline_calls_ = 0;
  probe_next_ = probing_ = slack_lost_ = false;
  action_ = GuardAction::rebasing;
  if (phase) ++stats_.phase_rebases;
  if (keep) return;  // more units for the same pool: a trip's hold goes on after it
  base_.clear();
  std::fill(floor_.begin(), floor_.end(), -1);
  hold_left_ = 0;
}

// Every slowed domain halfway back to the top, held; the margin grows.
void TimeGuard::trip() {
  ++stats_.trips;
  ++trips_in_row_;
  calm_units_ = 0;
  hold_ = std::min(opt_.max_hold_units, opt_.hold_units << std::min(trips_in_row_ - 1, 16));
  hold_left_ = hold_;
  for (std::size_t i = 0; i < floor_.size(); ++i) {
    const int level = in_effect_[i], top = top_[i];
    floor_[i] = level < top ? level + (top - level + 1) / 2 : -1;
  }
  learned_ = std::min(opt_.max_margin, std::max(learned_ * 1.5, learned_ + opt_.trip_margin));
  recent_.clear();
  action_ = GuardAction::tripped;
}

void TimeGuard::update_noise() {
  if (spread_.size() < 4) return;
  std::vector<double> v(spread_.begin(), spread_.end());
  const double med = quantile(v, 0.5);
  if (med <= 0) return;
  for (double& x : v) x = x / med - 1;
  stats_.noise = std::max(0.0, quantile(std::move(v), opt_.noise_quantile));
}

std::vector<int> TimeGuard::guarded_levels(const Observation& obs) const {
  std::vector<int> out(obs.domains.size());
  const double margin = std::min(opt_.max_margin, stats_.noise + learned_);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const DomainView& d = obs.domains[i];
    const int top = top_of(d);
    int l = std::clamp(policy_level_[i], 0, top);
    if ((baseline_ && !slack_start()) || probe_next_) l = top;
    if (l < top) l = with_margin(d, l, margin_of(obs, i, margin));
    l = std::max(l, floor_[i]);
    out[i] = l;
  }
  return out;
}

// The P-state nearest to level's frequency x (1 + margin), never below
// level: the margin is a statistic, and rounding it up would turn a quiet
// machine's 0.3 % into a whole P-state (the policy's own ceil already
// leaves half a step on average).
int TimeGuard::with_margin(const DomainView& d, int level, double margin) {
  const double want = double(d.pstates[std::size_t(level)]) * (1 + margin);
  int l = level;
  while (l < top_of(d)) {
    const double here = d.pstates[std::size_t(l)], next = d.pstates[std::size_t(l) + 1];
    if (want <= (here + next) / 2) break;
    ++l;
  }
  return l;
}

std::string TimeGuard::summary() const {
  const char* unit = periodic_ ? "window" : "iteration";
  char base[96];
  if (periodic_)
    std::snprintf(base, sizeof base, "%.3f s per second of work", stats_.baseline_s);
  else
    std::snprintf(base, sizeof base, "%.3f ms per iteration", 1e3 * stats_.baseline_s);
  char text[400];
  std::snprintf(text, sizeof text,
                "time loss %+.1f %% over the run, %+.1f %% over the last %d %ss (budget "
                "%.1f %%); stepped in %llu time(s); margin %.0f %% (noise %.1f %%, at most "
                "%.0f %%); baseline %s, taken %llu time(s) (%llu after a phase change) and "
                "probed %llu time(s)",
                100 * stats_.run_loss, 100 * stats_.loss, opt_.loss_units, unit, 100 * opt_.budget,
                static_cast<unsigned long long>(stats_.trips), 100 * stats_.margin,
                100 * stats_.noise, 100 * stats_.max_margin, base,
                static_cast<unsigned long long>(stats_.rebases),
                static_cast<unsigned long long>(stats_.phase_rebases),
                static_cast<unsigned long long>(stats_.probes));
  return text;
}

}  // namespace joule::energy
