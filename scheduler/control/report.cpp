// The "energy policy" section of the JOULE_REPORT=1 report: which policy ran
// (and what auto became), the decisions it took, time at each P-state per
// core, the saving the power model estimates against running the same work
// at fmax, and what deciding cost.
#include <algorithm>
#include <cstdio>
#include <ostream>

#include "controller.hpp"
#include "mpi_slack_driver.hpp"
#include "platform.hpp"
#include "text.hpp"
#include "worker_slot.hpp"

namespace joule::control {

using platform::Dvfs;
using platform::EnergyReading;
using platform::residency_text;
using platform::WorkerSlot;

namespace {

std::string fmt(const char* f, double a) { return core::format_number(f, a); }

}  // namespace

// The same work at fmax: each core busy for its work (seconds at fmax) at
// fmax power and asleep for the rest of the run; uncore as modelled. Against
// the modelled energy of the run. The reference keeps the run's wall time:
// that is the saving at equal time.
double Controller::saving_estimate(double* at_fmax_j, double* modelled_j) const {
  const EnergyReading& r = p_.final_reading();
  const double wall = r.seconds;
  double cores = 0, fmax = 0;
  for (std::size_t w = 0; w < std::size_t(p_.num_workers()) && w < r.worker_joules.size(); ++w) {
    const WorkerSlot& s = p_.slot(int(w));
    const double work = std::min(wall, double(s.work_ns.load()) * 1e-9);
    fmax += work * p_.model().busy_watts(s.table->back()) + (wall - work) * p_.model().idle_watts();
    cores += r.worker_joules[w];
  }
  double total = 0;
  for (double j : r.chip_model_joules) total += j;
  const double uncore = total - cores;
  *at_fmax_j = fmax + uncore;
  *modelled_j = total;
  return *at_fmax_j > 0 ? 1.0 - *modelled_j / *at_fmax_j : 0.0;
}

void Controller::report(std::ostream& os) const {
  os << "== energy policy ==\n";
  os << "policy: " << (resolved_.empty() ? "none" : resolved_)
     << " (JOULE_ENERGY_POLICY=" << asked_;
  if (!history_.empty()) os << "; " << history_;
  os << ")\n";
  if (mpi_ && (mpi_->calls() > 0 || asked_ == "mpi-slack")) mpi_->report(os);
  if (!policy_) return;
  os << "decisions: " << decisions_ << " taken (" << dvfs_ << " dvfs, " << balance_
     << " balance with " << moved_keys_ << " key move(s), " << mask_ << " mask)";
  if (!last_why_.empty()) os << "; last: " << last_why_;
  os << "\n";
  if (guard_)
    os << "time guard: " << guard_->summary() << "; raised " << guard_->stats().held
       << " decision(s)\n";
  else
    os << "time guard: off ("
       << (opt_.guard ? std::string(resolved_) + "'s levels are a limit it must not raise"
                      : std::string("JOULE_ENERGY_GUARD=0"))
       << ")\n";
  if (mask_ || !mask_why_.empty() || !mask_choice_why_.empty())
    os << "cores: " << (min_cores_ > 0 ? "fewest kept " + std::to_string(min_cores_) : "all kept")
       << (mask_why_.empty() ? "" : "; " + mask_why_)
       << (mask_choice_why_.empty() ? "" : "; last model check: " + mask_choice_why_) << "\n";
  os << "time at each P-state per core:\n";
  Dvfs& d = p_.dvfs();
  for (int w = 0; w < p_.num_workers(); ++w) {
    const int dom = d.domain_of(p_.worker_cpu(w));
    if (dom < 0) continue;
    const auto res = d.residency(dom, p_.end_ns());
    os << "  worker " << w << " (cpu " << p_.worker_cpu(w)
       << "):" << residency_text(d.pstates(p_.worker_cpu(w)), res) << "\n";
  }
  double at_fmax = 0, modelled = 0;
  const double saving = saving_estimate(&at_fmax, &modelled);
  os << "estimated saving vs the same work at fmax: " << fmt("%.1f", 100.0 * saving) << " % ("
     << fmt("%.3f", modelled) << " J modelled, " << fmt("%.3f", at_fmax) << " J at fmax)\n";
  const std::uint64_t n = decisions_.load(), applies = applies_.load();
  const int workers = p_.num_workers();
  const double per_decision = n ? double(overhead_ns_) / double(n) : 0.0;
  os << "policy overhead: " << fmt("%.6f", double(overhead_ns_) * 1e-9) << " s deciding ("
     << fmt("%.1f", per_decision / 1e3) << " us per decision, "
     << fmt("%.0f", workers ? per_decision / workers : 0.0) << " ns per decision and worker at "
     << workers << " worker(s), " << domain_cpu_.size() << " domain(s)); measured switch cost "
     << fmt("%.1f", switch_cost_s_ * 1e6) << " us\n";
  os << "frequency applies: " << applies << " (" << applies_by_owner_.load()
     << " by the domain's own worker at a task boundary, the rest by the deciding thread or at "
        "stop), "
     << fmt("%.1f", applies ? double(apply_ns_.load()) / 1e3 / double(applies) : 0.0)
     << " us per apply\n";
}

}  // namespace joule::control
