// A vector that keeps its first N elements inline: successor lists and
// fragment groups are almost always tiny, and a heap allocation per task
// would dominate the cost of fine-grained tasks. Only for trivially copyable T.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace joule::core {

template <class T, std::size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SmallVector() noexcept = default;
  SmallVector(const SmallVector& o) { append_all(o); }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      size_ = 0;
      append_all(o);
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  void push_back(const T& v) {
    if (size_ == capacity_) grow();
    data_[size_++] = v;
  }
  void pop_back() noexcept { --size_; }
  void clear() noexcept { size_ = 0; }
  // Moves o's elements into this vector, which must be empty: copied when
  // they fit (each keeps its storage, a heap block for later), else stolen.
  void take(SmallVector& o) noexcept {
    if (o.size_ <= capacity_) {
      for (std::size_t i = 0; i < o.size_; ++i) data_[i] = o.data_[i];
      size_ = o.size_;
      o.size_ = 0;
      return;
    }
    release();
    steal(o);
  }
  // Removes element i by moving the last one into its place (order not kept).
  void swap_remove(std::size_t i) noexcept { data_[i] = data_[--size_]; }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T& back() noexcept { return data_[size_ - 1]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

 private:
  bool is_inline() const noexcept { return data_ == reinterpret_cast<const T*>(inline_); }
  void append_all(const SmallVector& o) {
    for (const T& v : o) push_back(v);
  }
  void steal(SmallVector& o) noexcept {
    if (o.is_inline()) {
      std::memcpy(inline_, o.inline_, sizeof(inline_));  // fixed size: inlined
      data_ = reinterpret_cast<T*>(inline_);
    } else {
      data_ = o.data_;
      o.data_ = reinterpret_cast<T*>(o.inline_);
    }
    size_ = o.size_;
    capacity_ = o.capacity_;
    o.size_ = 0;
    o.capacity_ = N;
  }
  void release() noexcept {
    if (!is_inline()) std::free(data_);
    data_ = reinterpret_cast<T*>(inline_);
    size_ = 0;
    capacity_ = N;
  }
  void grow() {
    const std::size_t cap = std::size_t(capacity_) * 2;
    if (cap > UINT32_MAX) throw std::bad_alloc();
    T* mem = static_cast<T*>(std::malloc(cap * sizeof(T)));
    if (!mem) throw std::bad_alloc();
    std::memcpy(mem, data_, size_ * sizeof(T));
    if (!is_inline()) std::free(data_);
    data_ = mem;
    capacity_ = std::uint32_t(cap);
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* data_ = reinterpret_cast<T*>(inline_);
  // 32-bit counts: a Task holds two of these, and 16 bytes less keep it
  // within four cache lines (runtime/core/task.hpp).
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = N;
};

}  // namespace joule::core
