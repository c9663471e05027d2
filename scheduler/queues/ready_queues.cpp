#include "ready_queues.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <new>

namespace joule::queues {
const char* steal_distance_name(StealDistance d) noexcept {
  static constexpr const char* kNames[kStealDistances] = {"sibling", "cache", "node", "package",
                                                          "any"};
  return kNames[int(d)];
}

StealStats& StealStats::operator+=(const StealStats& o) noexcept {
  steals += o.steals;
  tasks += o.tasks;
  probes += o.probes;
  misses += o.misses;
  for (int i = 0; i < kStealDistances; ++i)
    by_distance[std::size_t(i)] += o.by_distance[std::size_t(i)];
  return *this;
}

ReadyQueues::ReadyQueues(const std::function<std::unique_ptr<ReadyQueue>()>& make, int shards,
                         int workers, const ShardPlacement& placement)
    : workers_(workers > 0 ? workers : 1),
      victims_(std::max(shards, 1)),
      summary_(std::max(shards, 1)) {
  auto first = make();
  sharded_ = first->sharded();
  batchable_ = first->batchable();
  follows_data_ = first->follows_data();
  newest_first_ = first->newest_first();
  owner_deque_ = sharded_ && first->owner_deque();
  shard_count_ = sharded_ ? std::max(shards, 1) : 1;
  if (sharded_) {
    shards_.place(shard_count_, placement);
  } else {
    // One shard every thread uses: no node of its own.
    shards_.place(1, ShardPlacement{placement.memory, {}});
  }
  shards_[0].queue = std::move(first);
  for (int i = 1; i < shard_count_; ++i) shards_[i].queue = make();
  for (int i = 0; i < shard_count_; ++i) shards_[i].rng = 0x9e3779b9u * std::uint32_t(i + 1);
  if (owner_deque_)
    for (int i = 0; i < shard_count_; ++i)
      shards_[i].own = std::make_unique<OwnerDeque>(shards_[i].lock);
  active_.store(std::min(workers_, shard_count_), std::memory_order_relaxed);
}

// One block per node holding that node's shards, contiguous (each starts
// on a cache line: the block is page-aligned, or aligned for Shard).
void ReadyQueues::Shards::place(int count, const ShardPlacement& where) {
  memory_ = where.memory;
  at_ = std::make_unique<Shard*[]>(std::size_t(count));  // null until placed
  count_ = count;
  std::map<int, std::vector<int>> by_node;
  for (int i = 0; i < count; ++i)
    by_node[i < int(where.nodes.size()) ? where.nodes[std::size_t(i)] : -1].push_back(i);
  blocks_.reserve(by_node.size());
  for (const auto& [node, members] : by_node) {
    void* block = allocate(members.size() * sizeof(Shard), node);
    blocks_.push_back(block);
    auto* shards = static_cast<Shard*>(block);
    for (std::size_t k = 0; k < members.size(); ++k)
      at_[std::size_t(members[k])] = new (shards + k) Shard();
  }
}

ReadyQueues::Shards::~Shards() {
  // A shard not placed (an allocation threw) is null.
  for (int i = 0; i < count_; ++i)
    if (Shard* s = at_[std::size_t(i)]) s->~Shard();
  for (void* block : blocks_) release(block);
}

void* ReadyQueues::Shards::allocate(std::size_t bytes, int node) {
  if (memory_.allocate) return memory_.allocate(bytes, node < 0 ? -1 : node);
  return ::operator new(bytes, std::align_val_t(alignof(Shard)));
}

void ReadyQueues::Shards::release(void* block) noexcept {
  if (memory_.release)
    memory_.release(block);
  else if (!memory_.allocate)
    ::operator delete(block, std::align_val_t(alignof(Shard)));
}

const void* ReadyQueues::shard_address(int worker) const noexcept {
  if (!sharded_) return &shards_[0];
  return worker >= 0 && worker < shard_count_ ? &shards_[worker] : nullptr;
}

int ReadyQueues::shard_of(const Task* t, int worker) {
  if (!sharded_) return 0;
  // Threads that are not workers spread their tasks round-robin.
  if (worker < 0)
    worker = int(next_external_.fetch_add(1, std::memory_order_relaxed) % unsigned(workers_));
  int key_home = -1;
  if (t->affinity != JOULE_NO_AFFINITY) {
    const int w = map_ ? map_->worker_of(t->affinity) : -1;
    if (w >= 0 && w < shard_count_) return w;
    key_home =
        map_ ? map_->spread(t->affinity, workers_) : int(t->affinity % std::uint64_t(workers_));
  }
  const int s = shards_[0].queue->home_shard(t, worker, workers_, key_home);
  return s >= 0 && s < shard_count_ ? s : worker % shard_count_;
}

int ReadyQueues::pinned_owner(const Task* t) const noexcept {
  if (!pins(t)) return -1;
  const int w = map_->worker_of(t->affinity);
  return w >= 0 && w < shard_count_ ? w : map_->spread(t->affinity, workers_);
}

void ReadyQueues::push(Task* t, int worker) {
  if (stays_with(t, worker)) return push_own(worker, t);
  const int home = shard_of(t, worker);
  if (owner_deque_ && home == worker && !pins(t)) return push_own(home, t);
  push_locked_counted(home, t, worker);
}

void ReadyQueues::push_own(int shard, Task* t) { push_own_many(shard, &t, 1); }

void ReadyQueues::push_own_many(int shard, Task* const* tasks, int n) {
  shards_[shard].own->push_many(tasks, n);
  summary_.mark(shard);
}

void ReadyQueues::push_for(Task* t, int worker) {
  push_locked_counted(shard_of(t, worker), t, worker);
}

void ReadyQueues::push_locked_counted(int shard, Task* t, int worker) {
  Shard& s = shards_[shard];
  bool queued = false;
  {
    std::lock_guard guard(s.lock);
    queued = !push_locked(s, t, worker);
    if (queued) s.size.fetch_add(1, std::memory_order_seq_cst);
  }
  if (queued) summary_.mark(shard);
}

bool ReadyQueues::push_locked(Shard& s, Task* t, int worker) {
  if (!pins(t)) {
    s.queue->push(t, worker);
    return false;
  }
  s.pinned.push_back(t);
  s.pinned_size.fetch_add(1, std::memory_order_seq_cst);
  return true;
}

void ReadyQueues::push_pinned(Task* t, int worker) {
  Shard& s = shards_[worker];
  std::lock_guard guard(s.lock);
  s.pinned.push_back(t);
  s.pinned_size.fetch_add(1, std::memory_order_seq_cst);
}

// Consecutive tasks for the same shard are pushed under one lock.
void ReadyQueues::push_many(Task* const* tasks, int n, int worker) {
  for (int i = 0; i < n;) {
    if (stays_with(tasks[i], worker)) {
      // A run of them in one publication (a completion releasing several).
      int end = i + 1;
      while (end < n && stays_with(tasks[end], worker)) ++end;
      push_own_many(worker, tasks + i, end - i);
      i = end;
      continue;
    }
    const int home = shard_of(tasks[i], worker);
    Shard& s = shards_[home];
    if (owner_deque_ && home == worker && !pins(tasks[i])) {
      push_own(home, tasks[i++]);
      continue;
    }
    int pushed = 0;
    {
      std::lock_guard guard(s.lock);
      do {
        if (!push_locked(s, tasks[i++], worker)) ++pushed;
      } while (i < n && shard_of(tasks[i], worker) == home);
      if (pushed) s.size.fetch_add(pushed, std::memory_order_seq_cst);
    }
    if (pushed) summary_.mark(home);
  }
}

// Pinned tasks run in the order they became ready.
Task* ReadyQueues::take_pinned(Shard& s) {
  if (s.pinned_size.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard guard(s.lock);
  Task* t = s.pinned.pop_front();
  if (t) s.pinned_size.fetch_sub(1, std::memory_order_relaxed);
  return t;
}

// The owner's lock-free end first (its newest task), then what other
// threads pushed to the shard.
Task* ReadyQueues::take_own(Shard& s, int worker) {
  if (s.own)
    if (Task* t = s.own->pop()) return t;
  if (s.size.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard guard(s.lock);
  Task* t = s.queue->pop(worker);
  if (t) s.size.fetch_sub(1, std::memory_order_relaxed);
  return t;
}

Task* ReadyQueues::pop(int worker, bool* stole) {
  if (stole) *stole = false;
  if (!sharded_) return take_own(shards_[0], worker);
  if (worker >= 0 && worker < shard_count_) {
    Shard& s = shards_[worker];
    if (Task* t = take_own(s, worker)) return t;
    if (Task* t = take_pinned(s)) return t;
    // Empty: say so in the summary (work_summary.hpp), then look again.
    if (summary_.clear(worker) && s.ready() > 0) summary_.mark(worker);
  }
  Task* t = steal(worker);
  if (stole) *stole = t != nullptr;
  return t;
}

}  // namespace joule::queues
