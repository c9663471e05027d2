// Memory on NUMA nodes: page-granular allocations bound to a node or
// interleaved (libnuma's mbind), and a record per allocation of the node it
// was meant for. The record is what the report, joule_node_of_address and
// the data-node preference of tasks read. On a synthetic topology (tests)
// a node the machine lacks is never passed to mbind: the allocation is made
// normally and only the intended node is recorded. Process-wide: memory a
// program placed may outlive a runtime (stop, start again).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <shared_mutex>

namespace joule::engine {

// What an allocation is for (its row in the report).
enum class MemoryUse : std::uint8_t { api, worker_state };
// How it was placed: bound to `node`, interleaved page by page over `nodes`
// nodes, or left to first touch (`node` set once the toucher is known).
enum class Placement : std::uint8_t { node, interleaved, first_touch };

struct MemoryRecord {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::size_t mapped = 0;  // bytes of the mapping it starts (0: a later chunk of one)
  int node = -1;           // intended node; interleaved: the first page's
  int nodes = 1;           // interleaved over nodes 0..nodes-1
  bool bound = false;      // mbind applied (the node exists on this machine)
  Placement placement = Placement::node;
  MemoryUse use = MemoryUse::api;
  // The node meant for the page holding address a.
  int node_at(std::uintptr_t a) const noexcept;
};

// What a program asks of joule_alloc (joule/memory.h), in the engine's terms.
struct PlaceRequest {
  enum Kind { local, interleaved, on_node, by_key } kind = local;
  int node = -1;
  std::uint64_t key = 0;
  std::size_t chunk_bytes = 0;  // by_key: bytes per key; 0: one key for all
  void (*init)(void* chunk, std::size_t bytes, std::uint64_t key, void* arg) = nullptr;
  void* init_arg = nullptr;
};

class NumaMemory {
 public:
  static constexpr int kMaxNodes = 64;  // counted per node in the report

  static NumaMemory& instance();
  // Nodes of this machine (libnuma; 1 when libnuma is unavailable).
  int machine_nodes() const noexcept { return machine_nodes_; }
  bool machine_has(int node) const noexcept;
  static std::size_t page_size() noexcept;

  // Whole pages, zero on first touch. Throws std::bad_alloc when mmap fails.
  void* allocate_on(std::size_t bytes, int node, MemoryUse use);
  void* allocate_interleaved(std::size_t bytes, int nodes, MemoryUse use);
  void* allocate_unplaced(std::size_t bytes, MemoryUse use);  // first touch decides
  // One mapping cut into chunks of `chunk` bytes (the last may be shorter),
  // each left to first touch and recorded apart.
  void* allocate_chunks(std::size_t bytes, std::size_t chunk, MemoryUse use);
  // The chunk or allocation starting at p was first touched on `node`.
  void set_touched(void* p, int node);
  // Unmaps the allocation starting at p and forgets its records. False when
  // p is not the start of an allocation made here.
  bool release(void* p) noexcept;

  // The allocation holding p; false when none does.
  bool find(const void* p, MemoryRecord& out) const;
  // The intended node of a program's placed data holding p, or -1: the
  // task creation path. A per-thread cache of the last allocation hit makes
  // repeated lookups in one array a compare.
  int api_node_of(const void* p) const noexcept;
  // Whether any program data is placed now (one relaxed load).
  bool any_api_data() const noexcept { return api_live_.load(std::memory_order_relaxed) > 0; }
  // Where the kernel put the page holding p (move_pages), -1 when the page
  // is not present yet or libnuma is unavailable.
  static int kernel_node_of(const void* p) noexcept;
  // Moves the pages holding [p, p + bytes) to `node` (move_pages): memory a
  // thread did not allocate itself, such as its thread_local state, which
  // the thread that created it touched first. False when the node does not
  // exist here (a synthetic topology) or the kernel refused.
  bool move_to_node(const void* p, std::size_t bytes, int node) const noexcept;

  std::uint64_t bytes_on(int node, MemoryUse use) const noexcept;

 private:
  NumaMemory();
  void* map_pages(std::size_t bytes);
  void add(const MemoryRecord& r);
  void count(const MemoryRecord& r, std::int64_t sign) noexcept;

  int machine_nodes_ = 1;
  bool numa_ = false;
  mutable std::shared_mutex mutex_;
  std::map<std::uintptr_t, MemoryRecord> records_;  // by begin
  std::atomic<std::int64_t> api_live_{0};
  // Bumped on every release: a thread's cached record from before is stale.
  std::atomic<std::uint64_t> epoch_{1};
  std::array<std::array<std::atomic<std::uint64_t>, 2>, kMaxNodes> bytes_{};
};

}  // namespace joule::engine
