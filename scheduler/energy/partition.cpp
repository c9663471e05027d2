// A communication-aware static mapping in the manner of ScotchLB (Padoin's
// thesis, Table 5.3, "S": dual recursive bipartitioning of the task graph onto the
// machine). Written here from the idea, not from SCOTCH: the core list is cut
// in halves (chips stay whole, as cores are numbered chip by chip), the keys
// are cut to match by growing one side along its heaviest links until it
// holds its load share, a refinement pass moves boundary keys whose move cuts
// less traffic while both sides stay within (1 + tolerance) of their shares,
// and each half recurses.
#include <algorithm>
#include <queue>
#include <unordered_map>

#include "remap.hpp"

namespace joule::energy {
namespace {

using Adjacency = std::vector<std::vector<std::pair<int, double>>>;

class Bisector {
 public:
  Bisector(std::vector<double> w, Adjacency adj, const RemapProblem& p, double tol)
      : w_(std::move(w)),
        adj_(std::move(adj)),
        p_(p),
        tol_(tol),
        side_(w_.size(), 0),
        live_(w_.size(), 0),
        where_(w_.size(), -1) {
    for (const auto& a : adj_) has_edges_ = has_edges_ || !a.empty();
  }

  // Maps `items` (ascending) onto `cores` (ascending, chip-major).
  void map(const std::vector<int>& items, const std::vector<int>& cores) {
    if (items.empty() || cores.empty()) return;
    if (cores.size() == 1) {
      for (int i : items) where_[std::size_t(i)] = cores.front();
      return;
    }
    const auto mid = cores.begin() + std::ptrdiff_t(cores.size() / 2);
    const std::vector<int> left(cores.begin(), mid), right(mid, cores.end());
    double total = 0;
    ++stamp_;
    for (int i : items) total += w_[std::size_t(i)], live_[std::size_t(i)] = stamp_;
    const double target = left_share(left, right, total);
    grow(items, target);
    refine(items, target, total - target);
    std::vector<int> li, ri;
    for (int i : items) (side_[std::size_t(i)] == 0 ? li : ri).push_back(i);
    map(li, left);
    map(ri, right);
  }

  int core_of(int item) const { return where_[std::size_t(item)]; }

 private:
  // The load the left cores should take so that load per capacity is equal
  // on both sides, counting the load no key carries (base).
  double left_share(const std::vector<int>& left, const std::vector<int>& right,
                    double total) const {
    double bl = 0, br = 0, cl = 0, cr = 0;
    for (int c : left) bl += p_.base[std::size_t(c)], cl += p_.capacity[std::size_t(c)];
    for (int c : right) br += p_.base[std::size_t(c)], cr += p_.capacity[std::size_t(c)];
    if (cl + cr <= 0) return total / 2;
    return std::clamp((total + bl + br) * cl / (cl + cr) - bl, 0.0, total);
  }

  bool live(int j) const { return live_[std::size_t(j)] == stamp_; }

  // The last item a breadth-first search from `from` reaches, within the
  // subproblem: far from `from`, so growing from it peels the graph from one
  // end instead of carving out its middle (a pseudo-peripheral seed).
  int farthest(int from) const {
    std::vector<int> queue{from};
    std::unordered_map<int, char> seen{{from, 1}};
    for (std::size_t at = 0; at < queue.size(); ++at)
      for (const auto& [j, bytes] : adj_[std::size_t(queue[at])])
        if (live(j) && seen.emplace(j, 1).second) queue.push_back(j);
    return queue.back();
  }

  // Side 0 grows from the first item along the heaviest links (greedy graph
  // growing); unconnected items join in key order. An item that would pass
  // the target by more than half its load is skipped for good (first fit).
  // After a skip only linked items may still join when there is a graph, so
  // that the side stays one connected piece; without one, any item may.
  void grow(const std::vector<int>& items, double target) {
    for (int i : items) side_[std::size_t(i)] = 1, conn_[i] = 0;
    std::vector<char> skipped(w_.size(), 0);
    std::priority_queue<std::pair<double, int>> frontier;  // (links to side 0, -item)
    if (has_edges_) frontier.push({0.0, -farthest(farthest(items.front()))});
    std::size_t next = 0;
    double load = 0;
    bool any_skipped = false;
    auto open = [&](int i) { return side_[std::size_t(i)] == 1 && !skipped[std::size_t(i)]; };
    while (true) {
      int pick = -1;
      while (!frontier.empty() && pick < 0) {
        const auto [c, neg] = frontier.top();
        frontier.pop();
        if (open(-neg) && c == conn_[-neg]) pick = -neg;
      }
      while (pick < 0 && next < items.size() && !(any_skipped && has_edges_))
        if (open(items[next++])) pick = items[next - 1];
      if (pick < 0) break;
      if (load + w_[std::size_t(pick)] / 2 > target) {
        skipped[std::size_t(pick)] = 1;
        any_skipped = true;
        continue;
      }
      side_[std::size_t(pick)] = 0;
      load += w_[std::size_t(pick)];
      for (const auto& [j, bytes] : adj_[std::size_t(pick)])
        if (live(j) && open(j)) frontier.push({conn_[j] += bytes, -j});
    }
  }

  // Boundary moves with positive gain (traffic cut removed) that keep the
  // receiving side within its share; repeated until a pass moves nothing.
  void refine(const std::vector<int>& items, double target0, double target1) {
    double load[2] = {0, 0};
    const double cap[2] = {(1 + tol_) * target0, (1 + tol_) * target1};
    for (int i : items) load[int(side_[std::size_t(i)])] += w_[std::size_t(i)];
    for (int pass = 0; pass < 8; ++pass) {
      bool moved = false;
      for (int i : items) {
        const int s = side_[std::size_t(i)], o = 1 - s;
        double gain = 0;
        for (const auto& [j, bytes] : adj_[std::size_t(i)])
          if (live(j)) gain += side_[std::size_t(j)] == s ? -bytes : bytes;
        const double wi = w_[std::size_t(i)];
        if (gain <= 0 || load[o] + wi > cap[o]) continue;
        side_[std::size_t(i)] = char(o);
        load[s] -= wi, load[o] += wi;
        moved = true;
      }
      if (!moved) break;
    }
  }

  std::vector<double> w_;
  Adjacency adj_;
  const RemapProblem& p_;
  double tol_;
  std::vector<char> side_;
  std::vector<std::uint64_t> live_;  // == stamp_: in the current subproblem
  std::vector<int> where_;
  std::unordered_map<int, double> conn_;  // item -> links to side 0 while growing
  std::uint64_t stamp_ = 0;
  bool has_edges_ = false;
};

}  // namespace

Moves partition_remap(const std::vector<KeyLoad>& keys, const std::vector<KeyEdge>& edges,
                      const RemapProblem& p, double tolerance) {
  std::vector<std::size_t> order;  // movable keys by key id: items
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (std::find(p.cores.begin(), p.cores.end(), keys[i].core) != p.cores.end())
      order.push_back(i);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return keys[a].key < keys[b].key; });
  std::unordered_map<std::uint64_t, int> item_of;
  std::vector<double> w;
  for (std::size_t i = 0; i < order.size(); ++i) {
    item_of[keys[order[i]].key] = int(i);
    w.push_back(keys[order[i]].work_s);
  }
  Adjacency adj(order.size());
  for (const auto& e : edges) {
    const auto a = item_of.find(e.a), b = item_of.find(e.b);
    if (a == item_of.end() || b == item_of.end() || a == b || e.bytes <= 0) continue;
    adj[std::size_t(a->second)].emplace_back(b->second, e.bytes);
    adj[std::size_t(b->second)].emplace_back(a->second, e.bytes);
  }
  std::vector<int> items(order.size()), cores = p.cores;
  for (std::size_t i = 0; i < items.size(); ++i) items[i] = int(i);
  std::sort(cores.begin(), cores.end());
  Bisector b(std::move(w), std::move(adj), p, tolerance);
  b.map(items, cores);
  Moves out;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& k = keys[order[i]];
    if (b.core_of(int(i)) != k.core) out.emplace_back(k.key, b.core_of(int(i)));
  }
  return out;
}

}  // namespace joule::energy
