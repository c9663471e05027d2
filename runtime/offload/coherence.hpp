// The host side of data kept on the card between card tasks (docs/offload.md,
// "Data kept on the card"). For every region some card task names it records
// which copy holds the newest version: host memory, the card's copy, or both.
// Versions, not flags, so that a copy-back that races with a newer writer can
// never mark stale data current: a copy is current when its version equals
// `latest`.
//
//   card task starts:  reads  -> copy in only if the card's copy is stale
//                      writes -> the card's copy is the newest; host stale
//   host task starts:  reads  -> copy back only if the host is stale
//                      writes -> host is the newest; the card's copy stale
//   taskwait / stop:   copy back what is stale on the host, drop card copies
//
// Dependencies order the tasks; this only decides which transfers they need.
// The card orders launches on a region by when they reach it, so a card
// task's decisions and its launch go in one order per region: card tasks
// that may run at once (readers) cannot overtake a copy in they rely on.
// Card regions must be disjoint or identical (same start and size) while
// they are live (between taskwaits); host tasks may name any part of them.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device.hpp"

namespace joule::offload {

// One region a task names, and how it uses it.
struct Use {
  const void* addr = nullptr;
  std::size_t bytes = 0;
  bool reads = false, writes = false;
};

struct CoherenceStats {
  std::uint64_t copies_in = 0;      // card tasks' regions copied to the card
  std::uint64_t resident_hits = 0;  // ... that were already current there
  std::uint64_t copies_back = 0;    // regions copied back to host memory
  std::size_t live = 0;             // regions tracked now
};

class Coherence {
 public:
  Coherence() = default;
  Coherence(const Coherence&) = delete;
  Coherence& operator=(const Coherence&) = delete;
  ~Coherence() { clear(); }  // its regions leave all_live_
  // Spawn of a card task: merges its regions (one per start address) and
  // checks them against the live ones; throws joule::error naming both
  // regions when two overlap without being identical. Returns the regions.
  std::vector<Use> enter(const std::vector<Use>& uses);
  // The card task runs now: decides its transfers (begin_card_task) and
  // submits it to dev, in one order per region (see `submitting`). `done`
  // runs as Device::submit says; throws what submit throws.
  void submit_card_task(Device& dev, Launch& l, Device::Completion done);
  // The card reported back; a failed task leaves host memory as it was.
  void end_card_task(const std::vector<Region>& regions, bool failed);
  // A spawn that failed after enter(): forget its regions.
  void leave(const std::vector<Use>& uses);

  // A host task (or code after taskwait_on) uses these regions now.
  void host_access(Device& dev, const std::vector<Use>& uses);
  // Whether any of these overlaps a tracked region (cheap when none are).
  bool tracks(const void* addr, std::size_t bytes) const;
  bool active() const noexcept { return live_.load(std::memory_order_acquire) > 0; }
  // Any Coherence (the card's, each GPU's) tracks a region: the host tasks'
  // hot path asks this, one relaxed load, before looking at each device.
  static bool any_active() noexcept { return all_live_.load(std::memory_order_relaxed) > 0; }
  // taskwait / runtime stop: host memory current for every region no card
  // task is writing now; card copies dropped (code outside tasks may write
  // host memory next). Rethrows the first failed copy-back.
  void flush(Device* dev);
  // The card is replaced or gone: forget everything.
  void clear();
  CoherenceStats stats() const;

 private:
  struct Entry {
    std::uintptr_t start = 0;
    std::size_t bytes = 0;
    std::uint64_t latest = 0, host = 0, card = 0;  // versions; 0: no copy
    int users = 0;                                 // card tasks spawned naming it and not yet ended
    int writers = 0;                               // card tasks writing it on the card now
    // Card tasks that decided their transfers of it and have not submitted
    // yet. The card orders launches on a region by when they reach it, so
    // the next decision waits: a reader that finds the card's copy current
    // must not reach the card before the copy in it relies on.
    int submitting = 0;
    bool copying = false;
  };
  using Map = std::map<std::uintptr_t, std::shared_ptr<Entry>>;  // by start
  Entry* find_exact(std::uintptr_t start);
  std::vector<std::shared_ptr<Entry>> overlapping(std::uintptr_t lo, std::uintptr_t hi) const;
  void check_free(std::uintptr_t lo, std::size_t bytes) const;
  // Sets to_card on the regions the task must copy in and records its
  // writes as the newest version (to_host stays false); marks them submitting.
  void begin_card_task(std::vector<Region>& regions);
  void submitted(const std::vector<Region>& regions);
  bool any_submitting(const std::vector<Region>& regions);
  void copy_back(std::unique_lock<std::mutex>& lk, Device& dev, Entry& e);
  void sync_live();

  mutable std::mutex m_;
  std::condition_variable cv_;
  Map map_;
  std::uint64_t clock_ = 0;
  std::atomic<std::size_t> live_{0};
  static inline std::atomic<std::size_t> all_live_{0};  // live_ summed over every instance
  CoherenceStats stats_;
};

std::string region_text(std::uintptr_t start, std::size_t bytes);

}  // namespace joule::offload
