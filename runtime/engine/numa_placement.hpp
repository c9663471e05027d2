// The NUMA placement room: memory a program places (joule_alloc: on a
// node, interleaved, or first touched by the worker of an affinity key) and
// tasks queued on the node of their data. The node map is built at start;
// the hot path asks active() (copied into TaskLifecycle) before anything.
#pragma once

#include <cstdint>
#include <ostream>

#include "node_map.hpp"
#include "numa_memory.hpp"
#include "task.hpp"
#include "thread_context.hpp"

namespace joule::engine {

using namespace joule::core;

class Runtime;

class NumaPlacement {
 public:
  explicit NumaPlacement(Runtime& rt) : rt_(rt) {}
  // Workers by node; prefer: tasks may be queued on their data's node.
  void build(const std::vector<int>& worker_nodes, int nodes, bool prefer) {
    nodes_.build(worker_nodes, nodes, prefer);
  }

  const NodeMap& nodes() const noexcept { return nodes_; }
  bool active() const noexcept { return nodes_.active(); }
  // The worker a keyed task of `key` goes to (the energy policy's plan,
  // else AffinityMap::spread over the owned workers).
  int worker_of_key(std::uint64_t key) const noexcept;
  // Memory placed as `req` says (joule_alloc). Throws joule::error.
  void* place(std::size_t bytes, const PlaceRequest& req);
  // At t's first dependency: a worker of the node its data was placed on.
  void prefer_data_node(Task* t, const void* addr) noexcept;
  // t became ready on another node than its data's: queued on that node's
  // worker (true), a sleeper near it woken.
  bool routed_to_node(Task* t, ThreadContext& ctx);
  void report(std::ostream& os) const;

 private:
  void touch_chunks(char* p, std::size_t bytes, const PlaceRequest& req);

  Runtime& rt_;
  NodeMap nodes_;
};

}  // namespace joule::engine
