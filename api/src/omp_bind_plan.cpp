// The thread-to-place rules of OpenMP 5.x (close, spread, primary) for the
// outer team, and the choice of one CPU per worker inside the places.
#include "omp_bind_plan.hpp"

#include <algorithm>

namespace joule::api {
namespace {

// Threads per place when T threads share P places (T > P): consecutive
// threads, floor(T/P) each and one more on the first T mod P places.
std::vector<ThreadPlace> share_places(int threads, int places, int primary, bool spread) {
  std::vector<ThreadPlace> out;
  for (int k = 0; k < places; ++k) {
    const int place = (primary + k) % places;
    const int n = threads / places + (k < threads % places ? 1 : 0);
    for (int i = 0; i < n; ++i)
      out.push_back(spread ? ThreadPlace{place, place, 1} : ThreadPlace{place, 0, places});
  }
  return out;
}

// spread with T <= P: T subpartitions of consecutive places from the
// primary's, floor(P/T) places each and one more in the first P mod T; each
// thread on the first place of its own.
std::vector<ThreadPlace> spread_thin(int threads, int places, int primary) {
  std::vector<ThreadPlace> out;
  int offset = 0;
  for (int k = 0; k < threads; ++k) {
    const int len = places / threads + (k < places % threads ? 1 : 0);
    const int first = (primary + offset) % places;
    out.push_back({first, first, len});
    offset += len;
  }
  return out;
}

// The team's thread count: JOULE_WORKERS, else OMP_NUM_THREADS (the team
// the program asked for, bound), else one per CPU of the places.
int team_threads(const OmpSettings& o, int workers, const PlaceList& places) {
  if (workers > 0) return workers;
  if (o.num_threads > 0) return o.num_threads;
  std::vector<int> all;
  for (const auto& p : places) all.insert(all.end(), p.begin(), p.end());
  std::sort(all.begin(), all.end());
  return int(std::unique(all.begin(), all.end()) - all.begin());
}

std::vector<int> effective_mask(const std::vector<int>& joule_cpus, const std::vector<int>& mask) {
  if (joule_cpus.empty()) return mask;
  std::vector<int> out;
  for (int c : joule_cpus)
    if (std::find(mask.begin(), mask.end(), c) != mask.end()) out.push_back(c);
  return out;
}

}  // namespace

std::vector<ThreadPlace> assign_places(OmpBind bind, int threads, int num_places, int primary) {
  if (threads <= 0) return {};
  if (bind == OmpBind::off || num_places <= 0) return std::vector<ThreadPlace>(threads);
  primary = ((primary % num_places) + num_places) % num_places;
  switch (bind) {
    case OmpBind::primary:
      return std::vector<ThreadPlace>(threads, ThreadPlace{primary, 0, num_places});
    case OmpBind::spread:
      return threads <= num_places ? spread_thin(threads, num_places, primary)
                                   : share_places(threads, num_places, primary, true);
    default:  // close, and true (implementation-defined: as close); T <= P: one per place
      return share_places(threads, num_places, primary, false);
  }
}

std::vector<int> pick_cpus(const PlaceList& places, std::vector<ThreadPlace>& threads) {
  int top = 0;
  for (const auto& p : places)
    for (int c : p) top = std::max(top, c + 1);
  std::vector<int> used(std::size_t(top), 0), out;
  const int n = int(places.size());
  auto free_in = [&](int p) {
    for (int c : places[std::size_t(p)])
      if (!used[std::size_t(c)]) return c;
    return -1;
  };
  for (ThreadPlace& t : threads) {
    int cpu = -1;
    for (int k = 0; k < n && cpu < 0; ++k) {
      const int p = (t.place + k) % n;
      cpu = free_in(p);
      if (cpu >= 0 && p != t.place) {
        const bool inside = (p - t.part_first + n) % n < t.part_len;
        t = {p, inside ? t.part_first : p, inside ? t.part_len : 1};
      }
    }
    if (cpu < 0) {
      const auto& own = places[std::size_t(t.place)];
      cpu = *std::min_element(own.begin(), own.end(), [&](int a, int b) {
        return used[std::size_t(a)] < used[std::size_t(b)];
      });
    }
    ++used[std::size_t(cpu)];
    out.push_back(cpu);
  }
  return out;
}

BindPlan make_bind_plan(hwloc_topology_t topo, const OmpSettings& o, int workers,
                        const std::vector<int>& joule_cpus, const std::vector<int>& mask) {
  BindPlan plan;
  const OmpBind first = o.first_bind();
  plan.binds = o.proc_bind.empty() ? std::vector<OmpBind>{first} : o.proc_bind;
  if (first == OmpBind::off) return plan;
  BuiltPlaces built =
      build_places(topo, o.places, o.gomp_cpu_affinity, effective_mask(joule_cpus, mask));
  plan.note = std::move(built.note);
  if (built.places.empty()) {
    plan.note = "no place has a CPU of the process's mask: threads are not bound";
    return plan;
  }
  plan.places = std::move(built.places);
  const int threads = team_threads(o, workers, plan.places);
  std::vector<ThreadPlace> team = assign_places(first, threads, int(plan.places.size()));
  const std::vector<int> cpus = pick_cpus(plan.places, team);
  plan.cpus = cpus;
  std::sort(plan.cpus.begin(), plan.cpus.end());
  plan.cpus.erase(std::unique(plan.cpus.begin(), plan.cpus.end()), plan.cpus.end());
  plan.workers = threads == int(plan.cpus.size()) ? 0 : threads;
  plan.of_cpu.assign(std::size_t(plan.cpus.back() + 1), ThreadPlace{});
  for (std::size_t i = team.size(); i-- > 0;) plan.of_cpu[std::size_t(cpus[i])] = team[i];
  return plan;
}

}  // namespace joule::api
