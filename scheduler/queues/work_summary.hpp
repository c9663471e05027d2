// Which shards may hold ready tasks: one bit per shard, so that a thread
// looking for work reads one word per 64 workers instead of two lines per
// worker. A bit is set by whoever pushes to an empty-looking shard and
// cleared only by the shard's owner when it finds the shard empty, so a
// busy worker's bit stays set and costs nothing; a set bit may be stale (the
// shard is empty), a clear bit is never wrong once the pusher returned:
//
//   pusher: publish the task (seq_cst), then load the bit (seq_cst) and set
//           it if clear;
//   owner:  clear the bit (seq_cst), then re-check the shard (seq_cst) and
//           set the bit again if it holds work.
//
// Either the pusher sees the bit cleared and sets it, or the owner's
// re-check sees the task.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace joule::queues {

class WorkSummary {
 public:
  explicit WorkSummary(int shards)
      : words_count_((shards + 63) / 64),
        words_(std::make_unique<std::atomic<std::uint64_t>[]>(std::size_t(words_count_))) {}

  void mark(int shard) noexcept {
    std::atomic<std::uint64_t>& w = word(shard);
    const std::uint64_t bit = bit_of(shard);
    if (!(w.load(std::memory_order_seq_cst) & bit)) w.fetch_or(bit, std::memory_order_seq_cst);
  }
  // The owner found its shard empty: clear, then the caller re-checks.
  // False when the bit was already clear (nothing to re-check).
  bool clear(int shard) noexcept {
    std::atomic<std::uint64_t>& w = word(shard);
    const std::uint64_t bit = bit_of(shard);
    return (w.load(std::memory_order_relaxed) & bit) &&
           (w.fetch_and(~bit, std::memory_order_seq_cst) & bit);
  }
  bool marked(int shard) const noexcept {
    return (words_[std::size_t(shard / 64)].load(std::memory_order_seq_cst) & bit_of(shard)) != 0;
  }
  int words() const noexcept { return words_count_; }
  std::uint64_t bits(int word_index) const noexcept {
    return words_[std::size_t(word_index)].load(std::memory_order_seq_cst);
  }

 private:
  static std::uint64_t bit_of(int shard) noexcept { return std::uint64_t(1) << (shard % 64); }
  std::atomic<std::uint64_t>& word(int shard) noexcept { return words_[std::size_t(shard / 64)]; }

  int words_count_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> words_;
};

}  // namespace joule::queues
