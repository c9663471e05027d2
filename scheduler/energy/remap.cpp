#include "remap.hpp"

#include <algorithm>
#include <numeric>

namespace joule::energy {
namespace {

bool in_set(const std::vector<int>& cores, int c) {
  return std::find(cores.begin(), cores.end(), c) != cores.end();
}

// Indices of the keys that live on the problem's cores, largest first
// (ties by key id, so the result does not depend on the input order).
std::vector<std::size_t> movable_keys(const std::vector<KeyLoad>& keys, const RemapProblem& p) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (in_set(p.cores, keys[i].core)) idx.push_back(i);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    if (keys[a].work_s != keys[b].work_s) return keys[a].work_s > keys[b].work_s;
    return keys[a].key < keys[b].key;
  });
  return idx;
}

Moves changed(const std::vector<KeyLoad>& keys, const std::vector<int>& where) {
  Moves out;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (where[i] != keys[i].core) out.emplace_back(keys[i].key, where[i]);
  return out;
}

}  // namespace

std::vector<double> base_loads(const Observation& obs) {
  std::vector<double> base(obs.cores.size());
  for (std::size_t c = 0; c < obs.cores.size(); ++c) base[c] = obs.cores[c].work_s;
  for (const auto& k : obs.keys)
    if (k.core >= 0 && std::size_t(k.core) < base.size()) base[std::size_t(k.core)] -= k.work_s;
  for (auto& b : base) b = std::max(0.0, b);
  return base;
}

RemapProblem equal_problem(const Observation& obs, std::vector<int> cores) {
  return {std::move(cores), base_loads(obs), std::vector<double>(obs.cores.size(), 1.0)};
}

Moves greedy_remap(const std::vector<KeyLoad>& keys, const RemapProblem& p) {
  std::vector<int> where(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) where[i] = keys[i].core;
  if (p.cores.empty()) return {};
  std::vector<double> load = p.base;
  for (std::size_t i : movable_keys(keys, p)) {
    int best = p.cores.front();
    for (int c : p.cores) {
      const auto uc = std::size_t(c), ub = std::size_t(best);
      if (load[uc] / p.capacity[uc] < load[ub] / p.capacity[ub]) best = c;
    }
    load[std::size_t(best)] += keys[i].work_s;
    where[i] = best;
  }
  return changed(keys, where);
}

namespace {

// Refine's state: loads and shares of the problem's cores, and where each
// key is now.
struct Refiner {
  const std::vector<KeyLoad>& keys;
  const RemapProblem& p;
  double tolerance;
  std::vector<int> where;
  std::vector<double> load, target;

  bool heavy(int c) const {
    return load[std::size_t(c)] > (1 + tolerance) * target[std::size_t(c)];
  }

  // The donor's largest key that fits under some other core's share, and the
  // core with the most headroom for it; {-1, -1} when none fits.
  std::pair<int, int> best_move(int donor, const std::vector<std::size_t>& order) const {
    for (std::size_t i : order) {
      if (where[i] != donor) continue;
      int to = -1;
      double room = 0;
      for (int c : p.cores) {
        const double r = target[std::size_t(c)] - load[std::size_t(c)];
        if (c != donor && r >= keys[i].work_s && r > room) room = r, to = c;
      }
      if (to >= 0) return {int(i), to};
    }
    return {-1, -1};
  }
};

}  // namespace

Moves refine_remap(const std::vector<KeyLoad>& keys, const RemapProblem& p, double tolerance) {
  Refiner r{keys, p, tolerance, {}, p.base, std::vector<double>(p.base.size(), 0.0)};
  for (const auto& k : keys) r.where.push_back(k.core);
  const auto order = movable_keys(keys, p);  // largest first: the fewest moves
  for (std::size_t i : order) r.load[std::size_t(keys[i].core)] += keys[i].work_s;
  double total = 0, caps = 0;
  for (int c : p.cores) total += r.load[std::size_t(c)], caps += p.capacity[std::size_t(c)];
  if (caps <= 0) return {};
  for (int c : p.cores) r.target[std::size_t(c)] = total * p.capacity[std::size_t(c)] / caps;
  std::vector<int> donors;
  for (int c : p.cores)
    if (r.heavy(c)) donors.push_back(c);
  while (!donors.empty()) {
    auto it = std::max_element(donors.begin(), donors.end(), [&](int a, int b) {
      return r.load[std::size_t(a)] / r.target[std::size_t(a)] <
             r.load[std::size_t(b)] / r.target[std::size_t(b)];
    });
    const auto [key, to] = r.best_move(*it, order);
    if (key < 0) {  // nothing fits anywhere: this donor stays as it is
      donors.erase(it);
      continue;
    }
    const auto k = std::size_t(key);
    r.where[k] = to;
    r.load[std::size_t(*it)] -= keys[k].work_s;
    r.load[std::size_t(to)] += keys[k].work_s;
    if (!r.heavy(*it)) donors.erase(it);
  }
  return changed(keys, r.where);
}

}  // namespace joule::energy
