// Workers by NUMA node: the node of each worker, the workers of each node,
// and what the report counts per node. Built once at start from the
// topology (a synthetic one in tests); guests added later by CPU lending
// have no node here and never receive a task for its data's node.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace joule::engine {

class NodeMap {
 public:
  // worker_nodes[w]: the node of worker w. prefer: tasks may be queued on
  // their data's node (off when the policy places tasks by data itself).
  void build(const std::vector<int>& worker_nodes, int nodes, bool prefer) {
    nodes_ = std::max(nodes, 1);
    for (int n : worker_nodes) nodes_ = std::max(nodes_, n + 1);  // OS numbers may have gaps
    node_of_ = worker_nodes;
    workers_on_.assign(std::size_t(nodes_), {});
    for (std::size_t w = 0; w < node_of_.size(); ++w)
      if (node_of_[w] >= 0 && node_of_[w] < nodes_)
        workers_on_[std::size_t(node_of_[w])].push_back(int(w));
    int populated = 0;
    for (const auto& ws : workers_on_) populated += ws.empty() ? 0 : 1;
    active_ = prefer && populated > 1;
    placed_ = std::make_unique<std::atomic<std::uint64_t>[]>(std::size_t(nodes_));
  }
  // More than one node has workers and the preference applies.
  bool active() const noexcept { return active_; }
  int nodes() const noexcept { return nodes_; }
  // -1: a guest worker, or not a worker.
  int node_of(int worker) const noexcept {
    return worker >= 0 && std::size_t(worker) < node_of_.size() ? node_of_[std::size_t(worker)]
                                                                : -1;
  }
  const std::vector<int>& workers_on(int node) const noexcept {
    static const std::vector<int> kNone;
    return node >= 0 && node < nodes_ ? workers_on_[std::size_t(node)] : kNone;
  }
  // A worker of `node` for data at addr, or -1 if the node has none. The
  // same 64 KiB of data go to the same worker: its cache, and its queue.
  int worker_for(int node, std::uintptr_t addr) const noexcept {
    const std::vector<int>& ws = workers_on(node);
    if (ws.empty()) return -1;
    return ws[std::size_t((addr >> 16) % ws.size())];
  }
  void count_placed(int node) noexcept {
    if (node >= 0 && node < nodes_)
      placed_[std::size_t(node)].fetch_add(1, std::memory_order_relaxed);
  }
  std::uint64_t placed(int node) const noexcept {
    return node >= 0 && node < nodes_ ? placed_[std::size_t(node)].load(std::memory_order_relaxed)
                                      : 0;
  }

 private:
  int nodes_ = 1;
  bool active_ = false;
  std::vector<int> node_of_;
  std::vector<std::vector<int>> workers_on_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> placed_;
};

}  // namespace joule::engine
