#include "numa_memory.hpp"

#include <numa.h>
#include <numaif.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <vector>

namespace joule::engine {

namespace {

std::size_t round_to_pages(std::size_t bytes) {
  const std::size_t page = NumaMemory::page_size();
  return (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
}

// The last record a thread's lookup found, valid while the epoch holds.
struct CachedRecord {
  std::uint64_t epoch = 0;
  MemoryRecord record;
};
thread_local CachedRecord t_cached;

}  // namespace

int MemoryRecord::node_at(std::uintptr_t a) const noexcept {
  if (placement != Placement::interleaved || nodes <= 1) return node;
  const std::uintptr_t page = (a - begin) / NumaMemory::page_size();
  return int((std::uintptr_t(node) + page) % std::uintptr_t(nodes));
}

// Never destroyed: a runtime stopped at exit (an atexit handler, which may
// run after static destructors) still releases its workers' memory here.
NumaMemory& NumaMemory::instance() {
  static NumaMemory* memory = new NumaMemory();
  return *memory;
}

NumaMemory::NumaMemory() {
  numa_ = numa_available() >= 0;
  machine_nodes_ = numa_ ? numa_max_node() + 1 : 1;
}

std::size_t NumaMemory::page_size() noexcept {
  static const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  return page;
}

bool NumaMemory::machine_has(int node) const noexcept {
  if (node < 0 || node >= machine_nodes_) return false;
  return !numa_ ? node == 0 : numa_bitmask_isbitset(numa_all_nodes_ptr, unsigned(node));
}

void* NumaMemory::map_pages(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

// Preferred, not bound: a full node spills over instead of failing the
// allocation (what numa_alloc_onnode's strict binding would do).
void* NumaMemory::allocate_on(std::size_t bytes, int node, MemoryUse use) {
  const std::size_t size = round_to_pages(bytes);
  void* p = map_pages(size);
  MemoryRecord r{
      std::uintptr_t(p), std::uintptr_t(p) + size, size, node, 1, false, Placement::node, use};
  if (numa_ && machine_has(node)) {
    unsigned long mask[(kMaxNodes + 63) / 64] = {};
    if (node < kMaxNodes) mask[node / 64] |= 1ul << (node % 64);
    r.bound = mbind(p, size, MPOL_PREFERRED, mask, kMaxNodes + 1, 0) == 0;
  }
  add(r);
  return p;
}

// Over the machine's nodes when it has at least `nodes`; else the pages
// only record where they were meant to go (a synthetic topology).
void* NumaMemory::allocate_interleaved(std::size_t bytes, int nodes, MemoryUse use) {
  const std::size_t size = round_to_pages(bytes);
  void* p = map_pages(size);
  MemoryRecord r{std::uintptr_t(p),
                 std::uintptr_t(p) + size,
                 size,
                 0,
                 std::max(nodes, 1),
                 false,
                 Placement::interleaved,
                 use};
  if (numa_ && nodes > 1 && nodes <= std::min(machine_nodes_, kMaxNodes)) {
    unsigned long mask[(kMaxNodes + 63) / 64] = {};
    bool all = true;
    for (int n = 0; n < nodes; ++n) {
      all = all && machine_has(n);
      mask[n / 64] |= 1ul << (n % 64);
    }
    if (all) r.bound = mbind(p, size, MPOL_INTERLEAVE, mask, kMaxNodes + 1, 0) == 0;
  }
  add(r);
  return p;
}

void* NumaMemory::allocate_unplaced(std::size_t bytes, MemoryUse use) {
  const std::size_t size = round_to_pages(bytes);
  void* p = map_pages(size);
  add({std::uintptr_t(p), std::uintptr_t(p) + size, size, -1, 1, false, Placement::first_touch,
       use});
  return p;
}

void* NumaMemory::allocate_chunks(std::size_t bytes, std::size_t chunk, MemoryUse use) {
  const std::size_t size = round_to_pages(bytes);
  void* p = map_pages(size);
  const auto begin = std::uintptr_t(p);
  // The last chunk takes the page's tail: chunks match ceil(bytes / chunk).
  for (std::size_t off = 0; off < bytes; off += chunk) {
    const std::size_t len = off + chunk >= bytes ? size - off : chunk;
    add({begin + off, begin + off + len, off == 0 ? size : 0, -1, 1, false, Placement::first_touch,
         use});
  }
  return p;
}

void NumaMemory::add(const MemoryRecord& r) {
  {
    std::unique_lock lock(mutex_);
    records_[r.begin] = r;
  }
  count(r, +1);
  if (r.use == MemoryUse::api) api_live_.fetch_add(1, std::memory_order_relaxed);
}

void NumaMemory::count(const MemoryRecord& r, std::int64_t sign) noexcept {
  const std::size_t size = r.end - r.begin;
  const int use = int(r.use);
  if (r.placement == Placement::interleaved) {
    for (int n = 0; n < r.nodes && n < kMaxNodes; ++n)
      bytes_[std::size_t(n)][std::size_t(use)].fetch_add(
          std::uint64_t(sign * std::int64_t(size / std::size_t(r.nodes))),
          std::memory_order_relaxed);
  } else if (r.node >= 0 && r.node < kMaxNodes) {
    bytes_[std::size_t(r.node)][std::size_t(use)].fetch_add(
        std::uint64_t(sign * std::int64_t(size)), std::memory_order_relaxed);
  }
}

void NumaMemory::set_touched(void* p, int node) {
  MemoryRecord r;
  {
    std::unique_lock lock(mutex_);
    auto it = records_.find(std::uintptr_t(p));
    if (it == records_.end() || it->second.placement != Placement::first_touch) return;
    count(it->second, -1);
    it->second.node = node;
    r = it->second;
  }
  count(r, +1);
  epoch_.fetch_add(1, std::memory_order_release);
}

bool NumaMemory::release(void* p) noexcept {
  std::vector<MemoryRecord> gone;
  {
    std::unique_lock lock(mutex_);
    auto it = records_.find(std::uintptr_t(p));
    if (it == records_.end() || it->second.mapped == 0) return false;
    const std::uintptr_t end = it->first + it->second.mapped;
    while (it != records_.end() && it->first < end) {
      gone.push_back(it->second);
      it = records_.erase(it);
    }
  }
  epoch_.fetch_add(1, std::memory_order_release);
  for (const MemoryRecord& r : gone) {
    count(r, -1);
    if (r.use == MemoryUse::api) api_live_.fetch_sub(1, std::memory_order_relaxed);
  }
  munmap(p, gone.front().mapped);
  return true;
}

bool NumaMemory::find(const void* p, MemoryRecord& out) const {
  const auto a = std::uintptr_t(p);
  std::shared_lock lock(mutex_);
  auto it = records_.upper_bound(a);
  if (it == records_.begin()) return false;
  --it;
  if (a >= it->second.end) return false;
  out = it->second;
  return true;
}

int NumaMemory::api_node_of(const void* p) const noexcept {
  const auto a = std::uintptr_t(p);
  const std::uint64_t epoch = epoch_.load(std::memory_order_acquire);
  CachedRecord& c = t_cached;
  if (c.epoch != epoch || a < c.record.begin || a >= c.record.end) {
    c.epoch = epoch;
    if (!find(p, c.record)) {
      c.record = MemoryRecord{};
      return -1;
    }
  }
  return c.record.use == MemoryUse::api ? c.record.node_at(a) : -1;
}

int NumaMemory::kernel_node_of(const void* p) noexcept {
  if (numa_available() < 0) return -1;
  const auto page = std::uintptr_t(p) & ~(std::uintptr_t(page_size()) - 1);
  void* pages[1] = {reinterpret_cast<void*>(page)};
  int status[1] = {-1};
  if (move_pages(0, 1, pages, nullptr, status, 0) != 0) return -1;
  return status[0] >= 0 ? status[0] : -1;
}

bool NumaMemory::move_to_node(const void* p, std::size_t bytes, int node) const noexcept {
  if (!numa_ || !machine_has(node) || bytes == 0) return false;
  const std::uintptr_t page = page_size();
  const std::uintptr_t first = std::uintptr_t(p) & ~(page - 1);
  const std::uintptr_t last = (std::uintptr_t(p) + bytes - 1) & ~(page - 1);
  constexpr int kMost = 8;  // a thread's context spans one or two pages
  void* pages[kMost];
  int nodes[kMost];
  int status[kMost];
  int count = 0;
  for (std::uintptr_t a = first; a <= last && count < kMost; a += page, ++count) {
    pages[count] = reinterpret_cast<void*>(a);
    nodes[count] = node;
  }
  if (move_pages(0, unsigned(count), pages, nodes, status, MPOL_MF_MOVE) != 0) return false;
  for (int i = 0; i < count; ++i)
    if (status[i] != node) return false;
  return true;
}

std::uint64_t NumaMemory::bytes_on(int node, MemoryUse use) const noexcept {
  if (node < 0 || node >= kMaxNodes) return 0;
  return bytes_[std::size_t(node)][std::size_t(use)].load(std::memory_order_relaxed);
}

}  // namespace joule::engine
