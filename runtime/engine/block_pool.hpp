// Blocks of one size on a free list, for the nodes of one node-based
// container (DepDomain's fragment map). A std::pmr::unsynchronized_pool_resource
// spent about 190 instructions per allocation and 225 per deallocation
// (choosing the pool by size, then the chunk: callgrind on the METG stencil);
// the nodes here all have one size, so a pop and a push do.
//
// Only the owning thread uses a pool (DepDomain's rule), and the memory goes
// back to the system when the pool ends, not before: a domain that shrinks
// keeps its blocks for the fragments it will make again.
#pragma once

#include <algorithm>
#include <cstddef>
#include <new>
#include <vector>

namespace joule::engine {

class BlockPool {
 public:
  BlockPool() = default;
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  ~BlockPool() {
    for (void* c : chunks_) ::operator delete(c, std::align_val_t(kAlign));
  }

  // The first call fixes the block size; a request of another size is not
  // a block (for_blocks says which).
  bool for_blocks(std::size_t bytes) noexcept {
    if (block_ == 0) block_ = round_up(bytes);
    return round_up(bytes) == block_;
  }
  void* allocate() {
    if (Free* f = free_) {
      free_ = f->next;
      return f;
    }
    if (next_ == end_) refill();
    void* p = next_;
    next_ += block_;
    return p;
  }
  void deallocate(void* p) noexcept { free_ = ::new (p) Free{free_}; }

 private:
  struct Free {
    Free* next;
  };
  static constexpr std::size_t kAlign = alignof(std::max_align_t);
  static std::size_t round_up(std::size_t n) noexcept {
    return (std::max(n, sizeof(Free)) + kAlign - 1) & ~(kAlign - 1);
  }
  // Chunks double from 16 up to 1024 blocks: a domain of a few fragments
  // stays small.
  void refill() {
    const std::size_t n = chunks_.size();
    const std::size_t blocks = n < 6 ? std::size_t(16) << n : 1024;
    // Room first, so that push_back cannot throw once the chunk exists.
    if (n == chunks_.capacity()) chunks_.reserve(2 * n + 8);
    char* c = static_cast<char*>(::operator new(blocks* block_, std::align_val_t(kAlign)));
    chunks_.push_back(c);
    next_ = c;
    end_ = c + blocks * block_;
  }

  Free* free_ = nullptr;
  char* next_ = nullptr;
  char* end_ = nullptr;
  std::size_t block_ = 0;
  std::vector<void*> chunks_;
};

// A std allocator over a BlockPool: single objects of the pool's size come
// from it, anything else from operator new.
template <class T>
class BlockAllocator {
 public:
  using value_type = T;
  explicit BlockAllocator(BlockPool* pool) noexcept : pool_(pool) {}
  template <class U>
  BlockAllocator(const BlockAllocator<U>& o) noexcept : pool_(o.pool()) {}

  T* allocate(std::size_t n) {
    if (n == 1 && alignof(T) <= alignof(std::max_align_t) && pool_->for_blocks(sizeof(T)))
      return static_cast<T*>(pool_->allocate());
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n == 1 && alignof(T) <= alignof(std::max_align_t) && pool_->for_blocks(sizeof(T)))
      return pool_->deallocate(p);
    ::operator delete(p, std::align_val_t(alignof(T)));
  }
  BlockPool* pool() const noexcept { return pool_; }
  template <class U>
  bool operator==(const BlockAllocator<U>& o) const noexcept {
    return pool_ == o.pool();
  }

 private:
  BlockPool* pool_;
};

}  // namespace joule::engine
