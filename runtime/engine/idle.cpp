#include "idle.hpp"

#include <map>
#include <new>

#include "numa_memory.hpp"
#include "perturb.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cerrno>

namespace joule::engine {
namespace {

long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t val, const timespec* ts) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, val, ts, nullptr, 0);
}

}  // namespace

Idle::Idle(int workers, const std::vector<int>& nodes)
    : count_(workers > 0 ? workers : 1),
      words_count_((count_ + 63) / 64),
      workers_(std::make_unique<core::WaitSlot*[]>(std::size_t(count_))),
      words_(std::make_unique<std::atomic<std::uint64_t>[]>(std::size_t(words_count_))) {
  place_slots(nodes);
}

Idle::~Idle() {
  for (void* block : blocks_) NumaMemory::instance().release(block);
}

// One page-granular block per node holding that node's slots, contiguous
// (a slot is one cache line); slots of an unknown node share one more block.
void Idle::place_slots(const std::vector<int>& nodes) {
  std::map<int, std::vector<int>> by_node;
  for (int i = 0; i < count_; ++i)
    by_node[i < int(nodes.size()) ? nodes[std::size_t(i)] : -1].push_back(i);
  NumaMemory& mem = NumaMemory::instance();
  blocks_.reserve(by_node.size());
  for (const auto& [node, members] : by_node) {
    const std::size_t bytes = members.size() * sizeof(core::WaitSlot);
    void* block = node >= 0 ? mem.allocate_on(bytes, node, MemoryUse::worker_state)
                            : mem.allocate_unplaced(bytes, MemoryUse::worker_state);
    blocks_.push_back(block);
    auto* slots = static_cast<core::WaitSlot*>(block);
    for (std::size_t k = 0; k < members.size(); ++k) {
      core::WaitSlot* s = new (slots + k) core::WaitSlot();
      s->index = members[k];
      workers_[std::size_t(members[k])] = s;
    }
  }
}

core::WaitSlot* Idle::external_slot() {
  std::lock_guard guard(external_mutex_);
  return &externals_.emplace_back();
}

void Idle::enter(core::WaitSlot& s) noexcept {
  s.sleeping.store(true, std::memory_order_seq_cst);
  if (s.index >= 0)
    words_[std::size_t(s.index / 64)].fetch_or(std::uint64_t(1) << (s.index % 64),
                                               std::memory_order_seq_cst);
  else {
    s.unclaimed.store(true, std::memory_order_seq_cst);
    external_sleepers_.fetch_add(1, std::memory_order_seq_cst);
  }
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  JOULE_PERTURB_POINT(sleep);  // published, the condition not yet re-checked
}

// True when a wake_one took this slot's bit (an external thread's claim)
// before we did: that wake was meant for work.
bool Idle::leave(core::WaitSlot& s) noexcept {
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
  bool chosen = false;
  if (s.index < 0) {
    external_sleepers_.fetch_sub(1, std::memory_order_relaxed);
    chosen = !s.unclaimed.exchange(false, std::memory_order_acq_rel);
  } else {
    const std::uint64_t bit = std::uint64_t(1) << (s.index % 64);
    chosen =
        (words_[std::size_t(s.index / 64)].fetch_and(~bit, std::memory_order_acq_rel) & bit) == 0;
  }
  s.sleeping.store(false, std::memory_order_relaxed);
  return chosen;
}

bool Idle::wait(core::WaitSlot& s, std::uint32_t seen, long limit_ns) noexcept {
  sleeps_.fetch_add(1, std::memory_order_relaxed);
  const timespec ts{limit_ns / 1'000'000'000, limit_ns % 1'000'000'000};
  const timespec* limit = limit_ns == kNoLimit ? nullptr : &ts;
  return futex(&s.word, FUTEX_WAIT_PRIVATE, seen, limit) != 0 && errno == ETIMEDOUT;
}

void Idle::signal(core::WaitSlot& s) noexcept {
  JOULE_PERTURB_POINT(wake);
  futex_wakes_.fetch_add(1, std::memory_order_relaxed);
  s.word.fetch_add(1, std::memory_order_seq_cst);
  futex(&s.word, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

// Claims one sleeper's bit (the first at or after `near`, wrapping), so two
// pushes wake two different workers.
bool Idle::wake_one_slow(int near, bool externals) noexcept {
  JOULE_PERTURB_POINT(wake);
  const int first = near >= 0 && near < count_ ? near / 64 : 0;
  for (int k = 0; k < words_count_; ++k) {
    const int i = (first + k) % words_count_;
    std::atomic<std::uint64_t>& word = words_[std::size_t(i)];
    std::uint64_t bits = word.load(std::memory_order_seq_cst);
    if (k == 0 && near >= 0 && near / 64 == i) {
      // Nearest first: rotate so the bits after `near` come first.
      const int shift = near % 64;
      const std::uint64_t after = shift ? bits & (~std::uint64_t(0) << shift) : bits;
      if (after) bits = after;
    }
    while (bits) {
      const std::uint64_t bit = bits & (~bits + 1);
      if (word.fetch_and(~bit, std::memory_order_acq_rel) & bit) {
        wakes_targeted_.fetch_add(1, std::memory_order_relaxed);
        begin_search();  // on the woken worker's behalf, before it runs
        signal(*workers_[std::size_t(i * 64 + __builtin_ctzll(bit))]);
        return true;
      }
      bits &= ~bit;
      if (!bits) bits = word.load(std::memory_order_relaxed);
    }
  }
  return externals && wake_external();
}

bool Idle::wake_worker(int w) noexcept {
  if (w < 0 || w >= count_) return false;
  std::atomic<std::uint64_t>& word = words_[std::size_t(w / 64)];
  const std::uint64_t bit = std::uint64_t(1) << (w % 64);
  if (!(word.load(std::memory_order_seq_cst) & bit)) return false;
  if (!(word.fetch_and(~bit, std::memory_order_acq_rel) & bit)) return false;
  wakes_targeted_.fetch_add(1, std::memory_order_relaxed);
  begin_search();  // on the woken worker's behalf, as wake_one_slow
  signal(*workers_[std::size_t(w)]);
  return true;
}

// No worker sleeps: the first sleeping external thread that no push has
// chosen yet (rare: the lock is taken only while one sleeps and no worker
// does). It is claimed and counted as looking, as a worker woken by
// wake_one_slow is: its own wait may be over when it wakes, and it then
// passes the wake on (TaskLifecycle::end_search) instead of leaving the
// task to threads that sleep with no time limit.
bool Idle::wake_external() noexcept {
  if (external_sleepers_.load(std::memory_order_seq_cst) == 0) return false;
  std::lock_guard guard(external_mutex_);
  for (core::WaitSlot& s : externals_) {
    if (!s.sleeping.load(std::memory_order_seq_cst)) continue;
    if (!s.unclaimed.exchange(false, std::memory_order_acq_rel)) continue;
    wakes_targeted_.fetch_add(1, std::memory_order_relaxed);
    begin_search();  // on the woken thread's behalf, before it runs
    signal(s);
    return true;
  }
  return false;
}

void Idle::wake_all() noexcept {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
  wakes_broadcast_.fetch_add(1, std::memory_order_relaxed);
  for (int i = 0; i < count_; ++i) {
    core::WaitSlot& s = *workers_[std::size_t(i)];
    if (s.sleeping.load(std::memory_order_seq_cst)) signal(s);
  }
  std::lock_guard guard(external_mutex_);
  for (core::WaitSlot& s : externals_)
    if (s.sleeping.load(std::memory_order_seq_cst)) signal(s);
}

IdleStats Idle::stats() const noexcept {
  IdleStats st;
  st.sleeps = sleeps_.load(std::memory_order_relaxed);
  st.wakes_targeted = wakes_targeted_.load(std::memory_order_relaxed);
  st.wakes_by_push = wakes_by_push_.load(std::memory_order_relaxed);
  st.wakes_broadcast = wakes_broadcast_.load(std::memory_order_relaxed);
  st.futex_wakes = futex_wakes_.load(std::memory_order_relaxed);
  st.spurious = spurious_.load(std::memory_order_relaxed);
  st.late = late_.load(std::memory_order_relaxed);
  return st;
}

}  // namespace joule::engine
