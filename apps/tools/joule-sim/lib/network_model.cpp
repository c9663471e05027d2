#include "network_model.hpp"

#include <algorithm>
#include <set>

#include "rng.hpp"

namespace joule::sim {
namespace {

// ring: i -- i+1 .. i+degree (mod n); ring_random adds random_pairs x n(n-1)/2
// seeded random links (Charm++ lb_test's "random" topology is a ring plus
// about 1 % of all pairs).
std::vector<std::pair<int, int>> make_graph(const NetworkSpec& s, int n, std::uint64_t seed) {
  std::set<std::pair<int, int>> e;
  auto link = [&](int a, int b) {
    if (a != b) e.insert({std::min(a, b), std::max(a, b)});
  };
  if (s.graph == "none" || n < 2) return {};
  for (int i = 0; i < n; ++i)
    for (int d = 1; d <= s.degree; ++d) link(i, (i + d) % n);
  if (s.graph == "ring_random") {
    Rng rng(seed ^ 0x6e6574776f726bULL);  // its own stream: the loads' stay as they were
    const auto extra = std::uint64_t(s.random_pairs * double(n) * double(n - 1) / 2);
    for (std::uint64_t k = 0; k < extra; ++k) link(int(rng.below(n)), int(rng.below(n)));
  }
  return {e.begin(), e.end()};
}

}  // namespace

NetworkModel::NetworkModel(const NetworkSpec& spec, int objects, int cores_per_chip,
                           std::uint64_t seed)
    : spec_(spec), cores_per_chip_(cores_per_chip), edges_(make_graph(spec, objects, seed)) {}

double NetworkModel::gbs(int a, int b) const {
  const int ca = a / cores_per_chip_, cb = b / cores_per_chip_;
  if (ca == cb) return spec_.core_gbs;
  if (ca / spec_.chips_per_node == cb / spec_.chips_per_node) return spec_.chip_gbs;
  return spec_.node_gbs;
}

double NetworkModel::message_s(int a, int b) const {
  if (a == b) return 0;
  return spec_.latency_us * 1e-6 + spec_.msg_kb * 1e-6 / gbs(a, b);
}

void NetworkModel::comm_per_core(const std::vector<int>& map, std::vector<double>& comm) const {
  std::fill(comm.begin(), comm.end(), 0.0);
  for (const auto& [i, j] : edges_) {
    const int a = map[std::size_t(i)], b = map[std::size_t(j)];
    const double t = message_s(a, b);  // each end sends one message
    comm[std::size_t(a)] += t;
    comm[std::size_t(b)] += t;
  }
}

int NetworkModel::remote_messages(const std::vector<int>& map) const {
  int n = 0;
  for (const auto& [i, j] : edges_) n += map[std::size_t(i)] != map[std::size_t(j)] ? 2 : 0;
  return n;
}

double NetworkModel::transfer_s(int from, int to, double mb) const {
  if (from == to) return 0;
  return spec_.latency_us * 1e-6 + mb * 1e-3 / gbs(from, to);
}

void NetworkModel::fill_edges(const std::vector<std::uint64_t>& keys, int steps,
                              std::vector<energy::KeyEdge>& out) const {
  const double bytes = 2 * spec_.msg_kb * 1e3 * steps;
  for (const auto& [i, j] : edges_)
    out.push_back({keys[std::size_t(i)], keys[std::size_t(j)], bytes});
}

}  // namespace joule::sim
