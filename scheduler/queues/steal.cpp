// ReadyQueues's thieves: nearest victims first, a bounded number of
// probes per attempt, and a proportional share taken into the thief's own
// deque, where other thieves can take it in turn.
#include <algorithm>
#include <mutex>

#include "clock.hpp"
#include "ready_queues.hpp"

namespace joule::queues {
namespace {

std::uint32_t next_random(std::uint32_t& x) noexcept {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}

thread_local std::uint32_t t_external_rng = 0x2545f491u;

}  // namespace

// The last victim that had work first (a producer keeps producing), then
// the topology levels nearest first, then any shard; each level searched
// among the shards the work summary marks, from a random start, at most
// kWindow victims deep.
Task* ReadyQueues::steal(int worker) {
  const bool owner = worker >= 0 && worker < shard_count_;
  Shard* me = owner ? &shards_[worker] : nullptr;
  StealStats* stats = me ? &me->stats : nullptr;
  std::uint32_t& rng = me ? me->rng : t_external_rng;
  int far = -1;  // beyond the node allowed: asked once per attempt
  const auto far_ok = [&] {
    if (far < 0) far = may_go_far(me) ? 1 : 0;
    return far == 1;
  };
  if (me && me->last_victim >= 0 && (me->last_distance <= StealDistance::node || far_ok()))
    if (Task* t = steal_from(me->last_victim, worker, me->last_distance, stats)) return t;
  if (const VictimOrder::Levels* levels = victims_.of(worker)) {
    for (const VictimOrder::Level& level : *levels) {
      if (level.distance > StealDistance::node && !far_ok()) break;
      Task* got = nullptr;
      const int start = int(next_random(rng) % unsigned(active()));
      // The level's victims that the summary marks, from a random one on.
      for_marked(
          start, kWindow,
          [&](int v) {
            got = steal_from(v, worker, level.distance, stats);
            if (got) {
              me->last_victim = v;
              me->last_distance = level.distance;
            }
            return got != nullptr;
          },
          level.mask.data());
      if (got) {
        me->near_dry_since = 0;
        return got;
      }
    }
  }
  if (far_ok())
    if (Task* t = steal_window(worker, stats, rng)) return t;
  if (stats) ++stats->misses;
  return nullptr;
}

// Workers only (an external thread has no node of its own). A run of dry
// looks starts again after a pause as long as the delay (the thief had
// work of its own meanwhile).
bool ReadyQueues::may_go_far(Shard* me) noexcept {
  const std::uint64_t delay = remote_delay_ns_.load(std::memory_order_relaxed);
  if (delay == 0 || !me) return true;
  const std::uint64_t now = core::now_ns();
  if (me->near_dry_since == 0 || now - me->near_dry_last > delay) me->near_dry_since = now;
  me->near_dry_last = now;
  if (now - me->near_dry_since < delay) return false;
  me->near_dry_since = 0;
  return true;
}

// Shards the summary marks, from a random one on: those that may have work.
Task* ReadyQueues::steal_window(int worker, StealStats* stats, std::uint32_t& rng) {
  Task* got = nullptr;
  const int start = int(next_random(rng) % unsigned(active()));
  for_marked(start, kWindow, [&](int v) {
    got = steal_from(v, worker, StealDistance::any, stats);
    if (got && stats) {
      shards_[worker].last_victim = v;
      shards_[worker].last_distance = StealDistance::any;
    }
    return got != nullptr;
  });
  return got;
}

// Up to half of the victim's tasks (at most kStealShare), oldest first: the
// thief runs the oldest and pushes the others on its own deque so that the
// next oldest is its next pop. Without a deque of its own, one task.
Task* ReadyQueues::steal_from(int victim, int worker, StealDistance d, StealStats* stats) {
  if (victim == worker || victim >= active() || !summary_.marked(victim)) return nullptr;
  if (stats) ++stats->probes;
  Shard& s = shards_[victim];
  if (s.ready() == 0) return nullptr;
  // A creator's lone task: wait a moment for the shard to grow. A producer
  // streaming tasks then stays ahead of its thief, whose tasks arrive as its
  // own releases (the immediate successor) instead of one steal per task.
  // A task a completion released is taken at once: there the wait is pure
  // latency (a stencil row hands one task to the other worker per row,
  // and 64 pauses are 2-4 us on current x86 cores).
  if (s.creating.load(std::memory_order_relaxed))
    for (int spin = 0; spin < kStealPatience && s.ready() < 2; ++spin) core::cpu_relax();
  const bool share = owner_deque_ && stats != nullptr;
  Task* got[kStealShare];
  int n = 0;
  if (s.own && s.own->size() > 0) {
    std::lock_guard guard(s.lock);
    n = s.own->steal(got, share ? kStealShare : 1);
  }
  if (n == 0 && s.size.load(std::memory_order_relaxed) > 0) {
    std::lock_guard guard(s.lock);
    if ((got[0] = s.queue->steal(worker))) {
      n = 1;
      s.size.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  if (n == 0) return nullptr;
  if (stats) {
    ++stats->steals;
    stats->tasks += std::uint64_t(n);
    ++stats->by_distance[std::size_t(d)];
  }
  // The rest newest first into the deque, so that got[1] is the next pop.
  if (n > 1) {
    std::reverse(got + 1, got + n);
    push_own_many(worker, got + 1, n - 1);
  }
  return got[0];
}

bool ReadyQueues::probe(int worker) noexcept {
  if (!sharded_) return shards_[0].ready() > 0;
  const bool owner = worker >= 0 && worker < shard_count_;
  if (owner) {
    const Shard& me = shards_[worker];
    if (me.ready() > 0 || me.pinned_size.load(std::memory_order_relaxed) > 0) return true;
    if (me.last_victim >= 0 && shards_[me.last_victim].ready() > 0) return true;
  }
  std::uint32_t& rng = owner ? shards_[worker].rng : t_external_rng;
  const int start = int(next_random(rng) % unsigned(active()));
  return for_marked(start, kWindow, [&](int s) { return shards_[s].ready() > 0; });
}

std::int64_t ReadyQueues::size() const noexcept {
  std::int64_t total = 0;
  for (int i = 0; i < shard_count_; ++i)
    total += shards_[i].ready() + shards_[i].pinned_size.load(std::memory_order_seq_cst);
  return total;
}

// Every marked shard, and only those: a clear bit is never wrong (see
// work_summary.hpp), so this is exact at the cost of one word per 64
// workers plus the shards that may hold work.
std::int64_t ReadyQueues::available_to(int worker) const noexcept {
  if (!sharded_) return shards_[0].ready();
  std::int64_t total = 0;
  if (worker >= 0 && worker < shard_count_)
    total += shards_[worker].pinned_size.load(std::memory_order_seq_cst);
  if (total > 0) return total;
  for_marked(0, shard_count_, [&](int s) {
    total += shards_[s].ready();
    return total > 0;
  });
  return total;
}

std::int64_t ReadyQueues::size_of(int worker) const noexcept {
  if (!sharded_) return size();
  if (worker < 0 || worker >= shard_count_) return 0;
  const Shard& s = shards_[worker];
  return s.ready() + s.pinned_size.load(std::memory_order_relaxed);
}

ReadyQueues::ShardCounts ReadyQueues::counts_of(int worker) const noexcept {
  ShardCounts c;
  if (worker < 0 || worker >= shard_count_) return c;
  const Shard& s = shards_[sharded_ ? worker : 0];
  c.own = s.own ? s.own->size() : 0;
  c.shared = s.size.load(std::memory_order_relaxed);
  c.pinned = s.pinned_size.load(std::memory_order_relaxed);
  return c;
}

const StealStats& ReadyQueues::steal_stats(int worker) const noexcept {
  static const StealStats kNone{};
  if (!sharded_ || worker < 0 || worker >= shard_count_) return kNone;
  return shards_[worker].stats;
}

}  // namespace joule::queues
