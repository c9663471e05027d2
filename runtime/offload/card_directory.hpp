// The card's data directory (card process only): host region (its start
// address) -> the card's own copy of it, in the card's heap, and a version
// bumped by every task that writes it. A tbb::concurrent_hash_map because the
// card's threads look regions up and grow them concurrently, off any hot path.
#pragma once

#include <oneapi/tbb/concurrent_hash_map.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace joule::offload {

struct CardCopy {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  std::uint64_t version = 0;
};

class CardDirectory {
 public:
  ~CardDirectory() {
    for (auto& [host, copy] : map_) std::free(copy.ptr);
  }
  // The card copy of [host, host + bytes), created or grown (keeping its
  // bytes) as needed. Tasks naming one region are ordered by the card's
  // dependencies, so the pointer stays valid while the task runs.
  void* acquire(std::uint64_t host, std::size_t bytes) {
    Map::accessor a;
    map_.insert(a, host);
    CardCopy& c = a->second;
    if (c.bytes < bytes) {
      void* grown = std::realloc(c.ptr, bytes);
      if (!grown) throw std::bad_alloc();
      std::memset(static_cast<char*>(grown) + c.bytes, 0, bytes - c.bytes);
      c.ptr = grown;
      c.bytes = bytes;
    }
    return c.ptr;
  }
  void wrote(std::uint64_t host) {
    Map::accessor a;
    if (map_.find(a, host)) ++a->second.version;
  }
  std::uint64_t version(std::uint64_t host) const {
    Map::const_accessor a;
    return map_.find(a, host) ? a->second.version : 0;
  }
  void release(std::uint64_t host) {
    Map::accessor a;
    if (!map_.find(a, host)) return;
    std::free(a->second.ptr);
    map_.erase(a);
  }
  std::size_t size() const { return map_.size(); }

 private:
  using Map = tbb::concurrent_hash_map<std::uint64_t, CardCopy>;
  Map map_;
};

}  // namespace joule::offload
