// The network between objects (kNeighbor in Padoin's EnergyLB thesis, App. A.1;
// lb_test's random graph): each object sends one message of msg_kb to each
// graph neighbour per step. A message between two objects on one core is free
// (memory); one that leaves its core costs its sender latency_us + bytes /
// bandwidth, the bandwidth set by how far it goes (another core of the chip,
// another chip of the node, another node). A core's communication time is
// frequency-independent and adds to its compute time, so placing neighbours
// apart lengthens the step. Migrations use the same links: object_mb over the
// bandwidth between the old and the new core.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "energy_policy.hpp"
#include "scenario.hpp"

namespace joule::sim {

class NetworkModel {
 public:
  NetworkModel(const NetworkSpec& spec, int objects, int cores_per_chip, std::uint64_t seed);
  bool active() const { return !edges_.empty(); }
  int edges() const { return int(edges_.size()); }
  // Per core: seconds of communication per step under `map` (object -> core).
  void comm_per_core(const std::vector<int>& map, std::vector<double>& comm) const;
  // Messages (directed) that leave their core under `map`.
  int remote_messages(const std::vector<int>& map) const;
  // Seconds to move `mb` megabytes from core `from` to core `to`.
  double transfer_s(int from, int to, double mb) const;
  // The key graph for a policy: bytes over `steps` steps, both directions.
  void fill_edges(const std::vector<std::uint64_t>& keys, int steps,
                  std::vector<energy::KeyEdge>& out) const;

 private:
  double gbs(int a, int b) const;  // bandwidth between two distinct cores
  double message_s(int a, int b) const;

  NetworkSpec spec_;
  int cores_per_chip_;
  std::vector<std::pair<int, int>> edges_;  // undirected, i < j
};

}  // namespace joule::sim
