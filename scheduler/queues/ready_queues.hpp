// The locks around a ReadyQueue policy. All synchronisation of the ready
// queues lives here. A plain policy is one shard behind one lock; a sharded
// policy (work-stealing) gets one shard per worker, each with its own lock
// and count. When the policy is a plain deque (ReadyQueue::owner_deque) a
// worker's own pushes and pops go to a lock-free OwnerDeque and never touch a
// line a thief writes. Thieves look nearest first (VictimOrder) with a
// bounded number of probes, and what they take beyond the task they run
// goes to their own deque, where other thieves see it: no ready task is ever
// private to one thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "affinity_map.hpp"
#include "owner_deque.hpp"
#include "ready_queue.hpp"
#include "spin_lock.hpp"
#include "task_list.hpp"
#include "victim_order.hpp"
#include "work_summary.hpp"

namespace joule::queues {

// A worker's steals, counted by that worker alone (read after it stopped).
struct StealStats {
  std::uint64_t steals = 0;  // successful steals
  std::uint64_t tasks = 0;   // tasks they took (run + queued at home)
  std::uint64_t probes = 0;  // victims looked at, successful or not
  std::uint64_t misses = 0;  // steal attempts that found nothing
  std::array<std::uint64_t, kStealDistances> by_distance{};
  StealStats& operator+=(const StealStats& o) noexcept;
};

// Where the shard headers live. The queues layer has no NUMA backend, so
// the engine passes its own: allocate gives `bytes` of whole pages on NUMA
// node `node` (-1: no node known, first touch decides), release frees such
// a block. Left empty: plain aligned allocation.
struct ShardMemory {
  std::function<void*(std::size_t bytes, int node)> allocate;
  std::function<void(void* block)> release;
};

// How the shards are laid out: one block per node holding the shards of
// that node's workers (nodes[i]: worker i's node); shards of workers not
// listed (guests) and a plain policy's one shared shard go in one more
// block of no node.
struct ShardPlacement {
  ShardMemory memory;
  std::vector<int> nodes;
};

class ReadyQueues {
 public:
  // make: builds one policy instance (called once per shard). shards: the
  // most workers that may ever run (guests on borrowed CPUs included);
  // workers: those the process owns (affinity keys map onto them).
  ReadyQueues(const std::function<std::unique_ptr<ReadyQueue>()>& make, int shards, int workers,
              const ShardPlacement& placement = {});

  // worker: the calling thread's worker index (-1: not a worker).
  void push(Task* t, int worker);
  // Queues t where `worker` would have, from a thread that is not `worker`.
  void push_for(Task* t, int worker);
  void push_many(Task* const* tasks, int n, int worker);
  // A task that only `worker` may take (its pinned list), whatever the
  // affinity map says: work that must run on that worker's CPU, such as the
  // first touch of memory meant for its NUMA node. Sharded policies only.
  void push_pinned(Task* t, int worker);
  bool sharded() const noexcept { return sharded_; }
  // `worker`'s thread says where its next pushes come from: creating tasks
  // (a spawn loop) or releasing successors. A thief waits a moment for a
  // creator's lone task only (steal_from). Written only when it changes, so
  // a worker that only releases never touches the line.
  void note_creating(int worker, bool creating) noexcept {
    if (worker < 0 || worker >= shard_count_) return;
    std::atomic<bool>& f = shards_[worker].creating;
    if (f.load(std::memory_order_relaxed) != creating) f.store(creating, std::memory_order_relaxed);
  }
  // Called by `worker`'s own thread when it starts: its deque's ring is
  // made again there (OwnerDeque::rehome), on that thread's memory node.
  void rehome(int worker) {
    if (worker >= 0 && worker < shard_count_ && shards_[worker].own) shards_[worker].own->rehome();
  }
  // The next task for `worker`: its own newest, its pinned ones, then a
  // steal (nearest victims first, a bounded number of probes); *stole says
  // which (a steal may also have queued more tasks on the thief's deque).
  Task* pop(int worker, bool* stole = nullptr);
  // Shards that hold workers now (guests are added at run time); loops over
  // victims stop here instead of at the largest possible count.
  void set_active(int shards) noexcept { active_.store(shards, std::memory_order_release); }
  VictimOrder& victims() noexcept { return victims_; }

  std::int64_t size() const noexcept;
  // Ready tasks queued for one worker (its shard; the whole queue when the
  // policy is not sharded).
  std::int64_t size_of(int worker) const noexcept;
  // size_of's parts: the owner's deque, the shared (locked) queue, pinned.
  struct ShardCounts {
    std::int64_t own = 0, shared = 0, pinned = 0;
  };
  ShardCounts counts_of(int worker) const noexcept;
  // > 0 exactly when `worker` (-1: a thread that is not a worker) may take a
  // ready task: some shard's unpinned task or one of its own pinned ones
  // (a count of the first shards found, not a total). Reads the work summary
  // and the shards it marks: the check just before sleeping.
  std::int64_t available_to(int worker) const noexcept;
  // Whether the work summary marks `worker`'s shard (true when not sharded):
  // for the state dump, which names a sleeper whose own work is unmarked.
  bool marked(int worker) const noexcept {
    return !sharded_ || worker < 0 || worker >= shard_count_ || summary_.marked(worker);
  }
  // A bounded look for work (own shard, the last victim, a few others in a
  // rotating window): what a spinning thread polls. May miss work a full
  // scan would see; it is found a few polls later or by available_to.
  bool probe(int worker) noexcept;
  const StealStats& steal_stats(int worker) const noexcept;

  // Keyed tasks go where the energy controller mapped their key; while the
  // map is pinned they wait for that worker alone. Set before tasks flow.
  void set_affinity_map(const core::AffinityMap* map) noexcept { map_ = map; }
  // Machines with several NUMA nodes: a thief looks only within its node
  // (the topology levels up to StealDistance::node) until it has found
  // nothing there for `ns`, then further. Keeps tasks queued on the node of
  // their data for that node's workers while they wake. 0: no wait.
  void set_remote_delay(std::uint64_t ns) noexcept {
    remote_delay_ns_.store(ns, std::memory_order_relaxed);
  }
  // The policy's order matters to the end (see ReadyQueue::batchable).
  bool order_matters() const noexcept { return !batchable_; }
  // The policy queues tasks where their data is (ReadyQueue::follows_data).
  bool follows_data() const noexcept { return follows_data_; }
  // A worker takes its own newest task first (ReadyQueue::newest_first).
  bool newest_first() const noexcept { return newest_first_; }
  // The worker that must run t when it is pinned (-1: anyone may).
  int pinned_owner(const Task* t) const noexcept;
  // Where `worker`'s shard header lives (the shared one for a plain
  // policy), and the bytes one takes: what placement tests check.
  const void* shard_address(int worker) const noexcept;
  static constexpr std::size_t shard_bytes() noexcept { return sizeof(Shard); }

 private:
  struct Shard {
    alignas(64) core::SpinLock lock;
    std::unique_ptr<ReadyQueue> queue;
    // Polled by idle workers: off the lock's line.
    alignas(64) std::atomic<std::int64_t> size{0};
    // The owner pushes tasks it creates (note_creating), not released ones.
    std::atomic<bool> creating{false};
    // Pinned keyed tasks (see set_affinity_map): only the owner takes them.
    std::atomic<std::int64_t> pinned_size{0};
    TaskList pinned;
    // The owner's lock-free end (owner_deque policies only).
    std::unique_ptr<OwnerDeque> own;
    // The owner's own line: where it last stole, its probe sequence, counts.
    alignas(64) int last_victim = -1;
    StealDistance last_distance = StealDistance::any;
    std::uint32_t rng = 0;
    // A run of fruitless looks within the node (set_remote_delay): its
    // first and its latest.
    std::uint64_t near_dry_since = 0;
    std::uint64_t near_dry_last = 0;
    StealStats stats;
    std::int64_t ready() const noexcept {
      return size.load(std::memory_order_seq_cst) + (own ? own->size() : 0);
    }
  };
  // The shards, each in its node's block (ShardPlacement): an array of
  // pointers, fixed after construction, so an access costs one more load
  // than a plain array. Destroys the shards and frees the blocks, also when
  // the constructor throws after placing them.
  class Shards {
   public:
    Shards() = default;
    ~Shards();
    Shards(const Shards&) = delete;
    Shards& operator=(const Shards&) = delete;
    void place(int count, const ShardPlacement& where);
    Shard& operator[](int i) const noexcept { return *at_[i]; }

   private:
    void* allocate(std::size_t bytes, int node);
    void release(void* block) noexcept;
    std::unique_ptr<Shard*[]> at_;
    int count_ = 0;
    ShardMemory memory_;
    std::vector<void*> blocks_;
  };
  // Victims outside the topology levels looked at per steal attempt.
  static constexpr int kWindow = 8;
  // Most tasks one steal takes: the thief runs one and queues the rest at
  // home, visible to other thieves.
  static constexpr int kStealShare = 16;
  // Pauses a thief waits for a creator's one-task shard to grow (steal_from).
  static constexpr int kStealPatience = 64;
  int shard_of(const Task* t, int worker);
  Task* take_own(Shard& s, int worker);
  Task* steal(int worker);
  Task* steal_from(int victim, int worker, StealDistance d, StealStats* stats);
  Task* steal_window(int worker, StealStats* stats, std::uint32_t& rng);
  bool may_go_far(Shard* me) noexcept;
  void push_locked_counted(int shard, Task* t, int worker);
  void push_own(int shard, Task* t);
  // n tasks at once, tasks[n - 1] the next pop (OwnerDeque::push_many).
  void push_own_many(int shard, Task* const* tasks, int n);
  // A plain deque keeps an unkeyed task with the worker that made it ready
  // (ReadyQueue::owner_deque): the common case, decided without asking.
  bool stays_with(const Task* t, int worker) const noexcept {
    return owner_deque_ && t->affinity == JOULE_NO_AFFINITY && worker >= 0 && worker < shard_count_;
  }
  bool pins(const Task* t) const noexcept {
    return map_ && sharded_ && t->affinity != JOULE_NO_AFFINITY && map_->pinned();
  }
  // Pushes to s (its lock held); true if the task went to the pinned list.
  bool push_locked(Shard& s, Task* t, int worker);
  Task* take_pinned(Shard& s);
  int active() const noexcept { return active_.load(std::memory_order_acquire); }
  // Calls f(shard) on up to `limit` shards the summary marks (and `mask`,
  // when given, one bit per shard), below active(), from `start` on
  // (wrapping), until f returns true; returns whether it did.
  template <class F>
  bool for_marked(int start, int limit, F f, const std::uint64_t* mask = nullptr) const;

  Shards shards_;
  int shard_count_ = 1;
  bool sharded_ = false;
  bool batchable_ = true;
  bool follows_data_ = false;
  bool newest_first_ = false;
  bool owner_deque_ = false;
  const int workers_;
  std::atomic<int> active_{1};
  std::atomic<unsigned> next_external_{0};
  const core::AffinityMap* map_ = nullptr;
  std::atomic<std::uint64_t> remote_delay_ns_{0};
  VictimOrder victims_;
  WorkSummary summary_;  // shards that may hold work (declared after the flags it follows)
};

template <class F>
bool ReadyQueues::for_marked(int start, int limit, F f, const std::uint64_t* mask) const {
  const int n = active();
  const int words = (n + 63) / 64;
  const int first = start / 64;
  const int offset = start % 64;
  int seen = 0;
  // One pass over the words from `start`, then the low bits of its word.
  for (int k = 0; k <= words; ++k) {
    const int w = (first + k) % words;
    std::uint64_t bits = summary_.bits(w) & (mask ? mask[w] : ~std::uint64_t(0));
    if (k == 0) bits &= ~std::uint64_t(0) << offset;
    if (k == words) bits &= offset ? (std::uint64_t(1) << offset) - 1 : 0;
    for (; bits; bits &= bits - 1) {
      const int shard = w * 64 + __builtin_ctzll(bits);
      if (shard >= n) break;
      if (f(shard)) return true;
      if (++seen >= limit) return false;
    }
  }
  return false;
}

}  // namespace joule::queues
