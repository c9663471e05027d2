// joule C++ API for placing data on NUMA nodes: the C functions of
// joule/memory.h, throwing joule::error, and an owning array type.
#pragma once

#include <joule/joule.h>
#include <joule/memory.h>
#include <joule/types.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace joule {

struct placement {
  static joule_placement_t local() { return {JOULE_PLACE_LOCAL, 0, 0, 0, nullptr, nullptr}; }
  static joule_placement_t interleaved() {
    return {JOULE_PLACE_INTERLEAVED, 0, 0, 0, nullptr, nullptr};
  }
  static joule_placement_t on_node(int node) {
    return {JOULE_PLACE_NODE, node, 0, 0, nullptr, nullptr};
  }
  // Chunk i of chunk_bytes is first touched by the worker of key first_key + i.
  static joule_placement_t by_key(std::uint64_t first_key, std::size_t chunk_bytes) {
    return {JOULE_PLACE_BY_KEY, 0, first_key, chunk_bytes, nullptr, nullptr};
  }
};

inline void* numa_alloc(std::size_t bytes, const joule_placement_t& where) {
  void* p = joule_alloc(bytes, &where);
  if (!p) throw error(JOULE_ERR_INVALID, joule_last_error());
  return p;
}
inline void numa_free(void* p) noexcept { joule_free(p); }
inline int numa_node_count() { return joule_numa_node_count(); }
inline int node_of_key(std::uint64_t key) { return joule_node_of_key(key); }
inline int node_of_address(const void* p) { return joule_node_of_address(p); }

// n trivially copyable T's, zero-filled, placed as `where` says; freed
// with the array.
template <class T>
class numa_array {
  static_assert(std::is_trivially_copyable_v<T>, "numa_array holds trivially copyable types");

 public:
  numa_array(std::size_t n, const joule_placement_t& where)
      : data_(static_cast<T*>(numa_alloc(n * sizeof(T), where))), size_(n) {}
  numa_array(const numa_array&) = delete;
  numa_array& operator=(const numa_array&) = delete;
  ~numa_array() { numa_free(data_); }
  T* data() noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  T* data_;
  std::size_t size_;
};

}  // namespace joule
