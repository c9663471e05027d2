// The state dump's sections past the workers (state_dump_text.hpp): the
// dependencies still in force, the spare threads, the polling services.
#include <ostream>

#include "clock.hpp"
#include "runtime.hpp"
#include "state_dump_text.hpp"

namespace joule::engine {

using namespace dump_text;
namespace {

const char* kind_name(DepKind k) {
  switch (k) {
    case DepKind::in:
      return "in";
    case DepKind::out:
    case DepKind::inout:
      return "inout/out";
    case DepKind::commutative:
      return "commutative";
    case DepKind::concurrent:
      return "concurrent";
    case DepKind::reduction:
      return "reduction";
    case DepKind::none:
      break;
  }
  return "access";
}

std::string task_line(const DepTaskView& v, const Whereabouts& w) {
  std::string s = task_id(v.id, v.label);
  const std::string code = code_of(v.fn);
  if (!code.empty()) s += " [" + code + "]";
  return s + ": " + state_of(v, w);
}

void write_group(std::ostream& os, const char* role, const char* kind, const DepGroupView& g,
                 const Whereabouts& w) {
  for (const DepTaskView& v : g.tasks)
    os << "      " << role << " (" << kind << "): " << task_line(v, w) << "\n";
  if (g.more > 0) os << "      ... and " << g.more << " more unfinished task(s) " << role << "\n";
}

void write_region(std::ostream& os, const DepRegionView& r, const Whereabouts& w) {
  char range[80];
  std::snprintf(range, sizeof range, "%#lx..%#lx", static_cast<unsigned long>(r.start),
                static_cast<unsigned long>(r.end));
  os << "    region " << range << " (" << (r.end - r.start) << " bytes):\n";
  // The earlier group, while any of it is unfinished, holds the region and
  // the latest waits; otherwise the latest holds it.
  const bool earlier_holds = !r.before.tasks.empty() || r.before.more > 0;
  if (earlier_holds) write_group(os, "held by", kind_name(r.before_kind), r.before, w);
  write_group(os, earlier_holds ? "waiting" : "held by", kind_name(r.kind), r.now, w);
}

void write_domain(std::ostream& os, const DepDomainView& d, const Whereabouts& w) {
  os << "  among the children of ";
  if (d.owner.fn)
    os << task_line(d.owner, w) << "\n";
  else
    os << "a thread's top level (tasks created outside any task)\n";
  for (const DepRegionView& r : d.regions) write_region(os, r, w);
  if (d.more_regions > 0) os << "    ... and " << d.more_regions << " more such region(s)\n";
  if (d.cut) os << "    (stopped reading after the first fragments: the domain is large)\n";
}

}  // namespace

void write_dependencies(std::ostream& os, const Whereabouts& w) {
  const DepViewLimits limits;
  const DepViews v = view_dependencies(limits);
  os << "dependencies: " << v.live << " domain(s) alive, " << v.domains.size()
     << " with regions that unfinished tasks hold or wait for (at most " << limits.regions
     << " regions each, " << limits.tasks << " tasks per access)\n";
  for (const DepDomainView& d : v.domains) write_domain(os, d, w);
  if (v.more_domains > 0)
    os << "  ... " << v.more_domains << " more domain(s) not read (the dump reads "
       << limits.domains << ")\n";
  if (v.busy > 0)
    os << "  (busy) " << v.busy
       << " domain(s) not read: their task was registering dependencies at that moment\n";
}

void write_spares(std::ostream& os, Runtime& rt) {
  std::vector<Spares::SpareView> spares;
  Workforce& workers = rt.workers();
  if (!workers.spares().view(spares)) {
    os << "spare threads: (busy) the pool was being changed; not read\n";
    return;
  }
  os << "spare threads (each takes the CPU of a worker whose task blocked): " << spares.size()
     << " made, " << workers.spares().handovers() << " hand-overs\n";
  for (std::size_t k = 0; k < spares.size(); ++k) {
    const Spares::SpareView& s = spares[k];
    const ThreadView tv = s.ctx ? view_thread(*s.ctx) : ThreadView{};
    os << "  spare thread " << k;
    if (tv.tid > 0) os << " (tid " << tv.tid << ")";
    os << ": ";
    if (s.seat < 0 || s.seat >= workers.count()) {
      os << "in the pool, holds no CPU\n";
      continue;
    }
    os << (s.holds ? "stands in for worker " : "stood in for worker ") << s.seat << " on CPU "
       << workers.worker(s.seat)->cpu() << (s.holds ? "" : " until its own task blocked") << ": "
       << (s.ctx ? thread_state(tv) : "starting") << "\n";
    if (s.ctx) write_outer_waits(os, tv, "    ");
  }
}

void write_polling(std::ostream& os, Runtime& rt) {
  PollingServices& polling = rt.polling();
  const std::uint64_t now = now_ns();
  const std::uint64_t last = polling.last_round_ns();
  os << "polling services: " << polling.count() << " registered, " << polling.rounds()
     << " rounds (" << polling.ticker_rounds() << " by the ticker: every worker busy)";
  if (last) os << ", the last " << seconds(now > last ? now - last : 0) << " ago";
  os << "\n";
  std::vector<PollingServices::ServiceView> services;
  if (!polling.view(services)) {
    os << "  (busy) the list was being changed; not read\n";
    return;
  }
  for (const PollingServices::ServiceView& s : services) {
    os << "  \"" << s.name << "\": called " << s.calls << " times";
    if (s.last_ns) os << ", last " << seconds(now > s.last_ns ? now - s.last_ns : 0) << " ago";
    os << "\n";
  }
}

}  // namespace joule::engine
