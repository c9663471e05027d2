// The session's runtime hooks: what a worker does at a task boundary, when
// idle, when parked; acquiring CPUs for ready tasks; blocking calls.
#include <algorithm>

#include "lending_session.hpp"
#include "os_support.hpp"

namespace joule::lending {
namespace {

// usable() records the futex sequence it saw so that the wait that follows
// cannot miss a transition made in between.
thread_local int tl_seen_cpu = -1;
thread_local std::uint32_t tl_seen_seq = 0;

// Blocking calls nest (an MPI call made inside another's implementation):
// only the outermost one lends and reclaims.
thread_local int tl_block_depth = 0;
thread_local int tl_block_cpu = -1;
thread_local bool tl_block_borrowed = false;
thread_local bool tl_block_counted = false;
std::atomic<int> g_blocked_threads{0};

}  // namespace

bool Session::usable(int cpu) {
  tl_seen_cpu = cpu;
  tl_seen_seq = table_->seq(cpu);
  if (cpu < 0 || cpu >= table_->ncpus()) return false;
  if (local_[cpu].load(std::memory_order_acquire) == LocalCpus::kBlockLent) return false;
  if (drom_.leaving(cpu)) return false;
  const CpuWord w = table_->load(cpu);
  if (!runs_on(w, pid_) || w.state == CpuState::Claimed) return false;
  if (hints_.hint() == Hint::Single && w.owner == pid_ && cpu != hints_.single_cpu()) return false;
  return true;
}

void Session::wait_for_change(int cpu, unsigned timeout_us) {
  if (cpu < 0 || cpu >= table_->ncpus()) return;
  // Only a parked worker waits here, so nothing of ours runs on cpu: a CPU
  // leaving our mask can go now, and a borrowed CPU its owner claimed (after
  // we borrowed it for this worker, before the worker woke) goes back.
  if (drom_.leaving(cpu)) drom_.finish_leaving(cpu);
  const CpuWord w = table_->load(cpu);
  if (w.state == CpuState::Claimed && w.guest == pid_) loans_.return_cpu(cpu);
  const std::uint32_t seen = tl_seen_cpu == cpu ? tl_seen_seq : table_->seq(cpu);
  table_->wait(cpu, seen, timeout_us);
  maybe_reap();  // a dead guest holding our claimed CPU is noticed here
}

void Session::wake(int cpu) { table_->notify(cpu); }

bool Session::wait_usable(int cpu, unsigned timeout_ms) {
  const std::uint64_t deadline =
      timeout_ms ? monotonic_ns() + std::uint64_t(timeout_ms) * 1'000'000ull : ~0ull;
  for (;;) {
    const std::uint32_t seen = table_->seq(cpu);
    const CpuWord w = table_->load(cpu);
    if (runs_on(w, pid_) && w.state != CpuState::Claimed) return true;
    if (w.owner != pid_ && w.guest != pid_) return false;  // nothing to wait for
    if (monotonic_ns() >= deadline) return false;
    table_->wait(cpu, seen, 20'000);
    maybe_reap();
  }
}

// An idle worker: a borrowed CPU goes back at once; an owned one is lent by
// autonomous workers (policy auto), or kept while the worker sleeps (policy
// mpi: it is lent only if a blocking call starts meanwhile).
bool Session::release_idle(int cpu) {
  if (cpu < 0 || cpu >= table_->ncpus()) return false;
  maybe_reap();
  if (drom_.leaving(cpu)) return true;  // parks; disowned there
  const CpuWord w = table_->load(cpu);
  if (w.guest == pid_ && w.owner != pid_) {
    loans_.return_cpu(cpu);
    return true;
  }
  if (w.owner != pid_) return true;
  if (w.state != CpuState::Busy) return true;  // already lent
  const Hint h = hints_.hint();
  if (h == Hint::Disabled || local_.no_lend(cpu)) return false;
  if (autonomous_ || (h == Hint::Single && cpu != hints_.single_cpu()))
    return loans_.lend_cpu(cpu) == Outcome::Done;
  std::uint8_t expect = LocalCpus::kRunning;
  local_[cpu].compare_exchange_strong(expect, LocalCpus::kSleeping, std::memory_order_acq_rel);
  return false;
}

// Before each task. The common case (our own CPU, nothing special going on)
// is two relaxed loads.
bool Session::must_return(int cpu) {
  if (cpu < 0 || cpu >= table_->ncpus()) return false;
  std::uint8_t ls = local_[cpu].load(std::memory_order_acquire);
  if (ls == LocalCpus::kSleeping && !local_[cpu].compare_exchange_strong(ls, LocalCpus::kRunning))
    ls = LocalCpus::kBlockLent;
  if (ls == LocalCpus::kBlockLent) return true;  // lent for a blocking call: park until it ends
  const CpuWord w = table_->load(cpu);
  const bool plain =
      hints_.hint() == Hint::Enabled && hints_.max_parallelism() == 0 && drom_.leaving_count() == 0;
  if (w.state == CpuState::Busy && w.owner == pid_) {
    if (plain) return false;
    if (drom_.leaving(cpu)) return true;
    const bool single = hints_.hint() == Hint::Single && cpu != hints_.single_cpu();
    const bool capped =
        hints_.max_parallelism() > 0 && loans_.held_count() > hints_.max_parallelism();
    return !local_.no_lend(cpu) && (single || capped) && loans_.lend_cpu(cpu) == Outcome::Done;
  }
  if (w.state == CpuState::Borrowed && w.guest == pid_) {
    if (plain) return false;
    const bool give =
        hints_.hint() != Hint::Enabled ||
        (hints_.max_parallelism() > 0 && loans_.held_count() > hints_.max_parallelism());
    return give && loans_.return_cpu(cpu) == Outcome::Done;
  }
  if (w.state == CpuState::Claimed && w.guest == pid_) loans_.return_cpu(cpu);
  return true;  // lent, claimed back, or not ours
}

// More ready tasks than running workers: own lent CPUs come back first, then
// idle CPUs of other processes are borrowed, never more than n in all. The
// lent bitmap and the table's idle summary say where to look: nothing here
// reads every CPU of the node.
void Session::acquire(int n, std::vector<int>& got) {
  if (n <= 0 || hints_.hint() != Hint::Enabled) return;
  maybe_reap();
  const bool own_lent = loans_.any_lent();
  if (!own_lent && !table_->any_idle()) return;
  if (const int cap = hints_.max_parallelism(); cap > 0) n = std::min(n, cap - loans_.held_count());
  int taken = 0;
  for (int i = 0; i < table_->idle_words() && taken < n && own_lent; ++i) {
    for (std::uint64_t m = loans_.lent_word(i); m && taken < n; m &= m - 1) {
      const int c = i * 64 + __builtin_ctzll(m);
      const CpuWord w = table_->load(c);
      if (w.owner != pid_ || (w.state != CpuState::Idle && w.state != CpuState::Borrowed)) continue;
      if (local_[c].load() == LocalCpus::kBlockLent || drom_.leaving(c)) continue;
      const Outcome o = loans_.reclaim_cpu(c);
      if (o == Outcome::Done) got.push_back(c);
      taken += o == Outcome::Done || o == Outcome::Pending;  // a claimed one comes back soon
    }
  }
  if (taken < n && table_->any_idle()) loans_.borrow_up_to(n - taken, &got);
}

void Session::enter_blocking(int keep) {
  if (tl_block_depth++ > 0) return;
  tl_block_cpu = -1;
  tl_block_borrowed = false;
  tl_block_counted = false;
  if (hints_.hint() == Hint::Disabled) return;
  maybe_reap();
  tl_block_counted = true;
  const bool first = g_blocked_threads.fetch_add(1) == 0;
  const int cpu = current_cpu();
  const CpuWord w = table_->load(cpu);
  if (keep <= 0 && !local_.no_lend(cpu) && runs_on(w, pid_) && w.state != CpuState::Claimed) {
    if (w.owner == pid_) {
      local_[cpu].store(LocalCpus::kBlockLent, std::memory_order_release);
      if (loans_.lend_cpu(cpu) == Outcome::Done)
        tl_block_cpu = cpu;
      else
        local_[cpu].store(LocalCpus::kRunning, std::memory_order_release);
    } else if (loans_.return_cpu(cpu) == Outcome::Done) {
      tl_block_cpu = cpu;
      tl_block_borrowed = true;
    }
  } else if (w.state == CpuState::Claimed && w.guest == pid_) {
    loans_.return_cpu(cpu);  // its owner wants it and we are about to wait anyway
  }
  if (autonomous_ || !first) return;
  // Policy mpi: the CPUs of workers asleep (not running a task) are lent too.
  for (int c = 0; c < table_->ncpus(); ++c) {
    std::uint8_t expect = LocalCpus::kSleeping;
    if (c == cpu || !local_[c].compare_exchange_strong(expect, LocalCpus::kBlockLent)) continue;
    if (loans_.lend_cpu(c) != Outcome::Done) local_[c].store(LocalCpus::kRunning);
  }
}

void Session::leave_blocking() {
  if (tl_block_depth == 0 || --tl_block_depth > 0) return;
  const bool last = tl_block_counted && g_blocked_threads.fetch_sub(1) == 1;
  tl_block_counted = false;
  if (last && !autonomous_) {
    for (int c = 0; c < table_->ncpus(); ++c) {  // the sleeping workers' CPUs
      if (c == tl_block_cpu || local_[c].load() != LocalCpus::kBlockLent) continue;
      loans_.reclaim_cpu(c);
      local_[c].store(LocalCpus::kRunning, std::memory_order_release);
      table_->notify(c);
    }
  }
  const int cpu = tl_block_cpu;
  tl_block_cpu = -1;
  if (cpu < 0) return;
  if (tl_block_borrowed) {
    // We gave back a borrowed CPU to block: take it again if still idle; if
    // not, this thread goes on where it is (the caveat of MPI inside tasks).
    table_->apply(cpu, CpuOp::Borrow, pid_);
    return;
  }
  loans_.reclaim_cpu(cpu);
  wait_usable(cpu, 0);  // a guest runs there until its next task boundary
  local_[cpu].store(LocalCpus::kRunning, std::memory_order_release);
  table_->notify(cpu);
}

}  // namespace joule::lending
