// The session's lifecycle and its explicit verbs (C and DLB APIs).
#include "lewi_session.hpp"

#include <sched.h>
#include <unistd.h>
#include <algorithm>

#include "config.hpp"
#include "lending_settings.hpp"
#include "os_support.hpp"

namespace joule::lending {
namespace {

std::mutex g_mutex;
std::weak_ptr<Session> g_session;

std::unique_ptr<CpuTable> open_table(const LewiOptions& o) {
  if (o.mode == "local") return CpuTable::open_private();
  return CpuTable::open_shared(o.shm.empty() ? CpuTable::default_name() : o.shm);
}

}  // namespace

LewiOptions options_from(const core::Config& cfg) {
  LewiOptions o;
  const LendingSettings& s = cfg.get<LendingSettings>();
  o.mode = s.mode == LewiMode::local ? "local" : "node";
  o.policy = core::choice_name(core::Choices<LewiPolicy>(kLewiPolicies), s.policy);
  o.shm = s.shm;
  o.keep_cpu = s.keep_cpu;
  o.drom_timeout_ms = unsigned(s.drom_timeout_ms);
  o.reclaim_timeout_ms = unsigned(s.reclaim_timeout_ms);
  return o;
}

std::shared_ptr<Session> Session::current() {
  std::lock_guard guard(g_mutex);
  auto s = g_session.lock();
  if (s && s->pid_ != ::getpid()) return nullptr;  // inherited across fork: not ours
  return s;
}

std::shared_ptr<Session> Session::join(const LewiOptions& opts, const std::vector<int>& owned) {
  std::lock_guard guard(g_mutex);
  if (auto s = g_session.lock(); s && s->pid_ == ::getpid()) {
    s->own(owned);
    return s;
  }
  auto s = open(opts, owned, ::getpid());
  g_session = s;
  return s;
}

std::shared_ptr<Session> Session::join_subprocess(const LewiOptions& opts,
                                                  const std::vector<int>& owned, int number) {
  if (number < 1 || number >= (1 << (CpuWord::kPidBits - kOsPidBits)))
    throw TableError(TableError::Kind::Full, "joule: too many subprocess handles");
  return open(opts, owned, ::getpid() | pid_t(number) << kOsPidBits);
}

std::shared_ptr<Session> Session::open(const LewiOptions& opts, const std::vector<int>& owned,
                                       pid_t id) {
  for (int attempt = 0;; ++attempt) {
    std::shared_ptr<Session> s(new Session(opts, open_table(opts), id));
    try {
      s->slot_ = s->table_->register_process(s->pid_, opts.mode == "local" ? 1 : 2);
      // A reused slot keeps its last DROM sequence: start from it.
      s->drom_seen_ = s->table_->segment()->procs[s->slot_].drom_seq.load();
    } catch (const TableError& e) {
      // The last user removed the segment between our open and register.
      if (e.kind() == TableError::Kind::Busy && attempt < 20) continue;
      throw;
    }
    s->table_->reap_dead();  // stale CPUs of dead processes go back first
    s->own(owned);           // on a conflict the destructor gives back what was taken
    return s;
  }
}

Session::Session(LewiOptions opts, std::unique_ptr<CpuTable> table, pid_t id)
    : opts_(std::move(opts)),
      table_(std::move(table)),
      pid_(id),
      autonomous_(opts_.policy != "mpi"),
      local_(new std::atomic<std::uint8_t>[std::size_t(kMaxCpus)]),
      leaving_(new std::atomic<std::uint8_t>[std::size_t(kMaxCpus)]),
      claimed_ns_(new std::atomic<std::uint64_t>[std::size_t(kMaxCpus)]) {
  for (int i = 0; i < kMaxCpus; ++i) {
    local_[i].store(kRunning, std::memory_order_relaxed);
    leaving_[i].store(0, std::memory_order_relaxed);
    claimed_ns_[i].store(0, std::memory_order_relaxed);
  }
}

Session::~Session() {
  if (os_pid(pid_) != ::getpid()) return;  // a forked child's copy: the parent owns the CPUs
  if (slot_ >= 0) table_->unregister_process(slot_);
}

void Session::own(const std::vector<int>& cpus) {
  for (int cpu : cpus) {
    if (cpu < 0 || cpu >= table_->ncpus())
      throw TableError(TableError::Kind::Corrupt,
                       "joule: CPU " + std::to_string(cpu) + " is outside the CPU table " +
                           table_->name() + " (" + std::to_string(table_->ncpus()) + " CPUs)");
    const auto r = table_->apply(cpu, CpuOp::Own, pid_);
    if (r.outcome != Outcome::Illegal) continue;
    const pid_t other = r.before.owner;
    std::string who = std::to_string(os_pid(other));
    for (const auto& p : table_->processes())
      if (p.pid == other && !p.comm.empty()) who += " (" + p.comm + ")";
    if (other != os_pid(other))
      who += ", its DLB subprocess handle " + std::to_string(other >> kOsPidBits);
    throw TableError(TableError::Kind::Busy,
                     "joule: JOULE_LENDING: CPU " + std::to_string(cpu) +
                         " is already owned by process " + who + " in CPU table " + table_->name() +
                         "; give each process its own CPUs (mpirun --bind-to core, taskset, "
                         "JOULE_CPUS) or use JOULE_LENDING=local");
  }
}

// A worker (or an MPI rank's thread) is pinned to one CPU, so the CPU it runs
// on is its CPU; sched_getcpu is a vDSO call, unlike reading the affinity.
int Session::current_cpu() { return ::sched_getcpu(); }

void Session::maybe_reap() {
  const std::uint64_t now = monotonic_ns();
  std::uint64_t prev = last_reap_ns_.load(std::memory_order_relaxed);
  if (now - prev < 50'000'000ull) return;
  if (!last_reap_ns_.compare_exchange_strong(prev, now, std::memory_order_relaxed)) return;
  if (table_->reap_dead() >= 0) recount_lent();  // a dead guest's CPUs came back as Idle
  revoke_overdue(now);
}

// A dead guest's CPUs come back through reap_dead; a live one that does not
// return a claimed CPU (SIGSTOP, a hang) loses it once the claim is older
// than reclaim_timeout_ms. The claim's age starts at reclaim_cpu, or when
// first seen here for claims made another way (DROM adopting a CPU).
void Session::revoke_overdue(std::uint64_t now) {
  const std::uint64_t limit = std::uint64_t(opts_.reclaim_timeout_ms) * 1'000'000ull;
  if (limit == 0) return;
  for (int c = 0; c < table_->ncpus(); ++c) {
    const CpuWord w = table_->load(c);
    const std::uint64_t since = claimed_ns_[c].load(std::memory_order_relaxed);
    if (w.state != CpuState::Claimed || w.owner != pid_) {
      if (since) claimed_ns_[c].store(0, std::memory_order_relaxed);
      continue;
    }
    if (!since) {
      claimed_ns_[c].store(now, std::memory_order_relaxed);
    } else if (now - since >= limit &&
               table_->apply(c, CpuOp::Revoke, pid_).outcome == Outcome::Done) {
      claimed_ns_[c].store(0, std::memory_order_relaxed);
      table_->note_revoked(slot_);
    }
  }
}

// The lent hints from the table (at most every 50 ms, from maybe_reap).
void Session::recount_lent() {
  int lent = 0;
  for (int i = 0; i < table_->idle_words(); ++i) {
    std::uint64_t bits = 0;
    for (int b = 0; b < 64 && i * 64 + b < table_->ncpus(); ++b) {
      const CpuWord w = table_->load(i * 64 + b);
      if (w.owner == pid_ && (w.state == CpuState::Idle || w.state == CpuState::Borrowed))
        bits |= std::uint64_t(1) << b;
    }
    lent_mask_[i].store(bits, std::memory_order_relaxed);
    lent += __builtin_popcountll(bits);
  }
  lent_hint_.store(lent, std::memory_order_relaxed);
}

void Session::mark_lent(int cpu, bool lent) noexcept {
  const std::uint64_t bit = std::uint64_t(1) << (cpu % 64);
  if (lent) {
    lent_mask_[cpu / 64].fetch_or(bit, std::memory_order_relaxed);
    lent_hint_.fetch_add(1, std::memory_order_relaxed);
  } else {
    lent_mask_[cpu / 64].fetch_and(~bit, std::memory_order_relaxed);
    lent_hint_.fetch_sub(1, std::memory_order_relaxed);
  }
}

void Session::set_nearness(const std::vector<std::vector<int>>& levels) {
  std::lock_guard guard(near_mutex_);
  std::uint64_t seen[kMaskWords] = {};
  int n = 0;
  for (const auto& level : levels) {
    if (n == kMaxNear - 1) break;
    std::uint64_t bits[kMaskWords] = {};
    for (int c : level)
      if (c >= 0 && c < kMaxCpus && !(seen[c / 64] >> (c % 64) & 1))
        bits[c / 64] |= std::uint64_t(1) << (c % 64);
    for (int i = 0; i < kMaskWords; ++i) {
      near_[n][i].store(bits[i], std::memory_order_relaxed);
      seen[i] |= bits[i];
    }
    ++n;
  }
  for (int i = 0; i < kMaskWords; ++i) near_[n][i].store(~seen[i], std::memory_order_relaxed);
  near_levels_.store(n + 1, std::memory_order_release);
}

Outcome Session::lend_cpu(int cpu) {
  const CpuWord w = table_->load(cpu);
  if (w.guest == pid_ && w.owner != pid_) return return_cpu(cpu);
  const auto r = table_->apply(cpu, CpuOp::Lend, pid_);
  if (r.outcome == Outcome::Done) mark_lent(cpu, true);
  return r.outcome;
}

Outcome Session::reclaim_cpu(int cpu) {
  const auto r = table_->apply(cpu, CpuOp::Reclaim, pid_);
  if (r.outcome == Outcome::Done || r.outcome == Outcome::Pending) mark_lent(cpu, false);
  if (r.outcome == Outcome::Pending)
    claimed_ns_[cpu].store(monotonic_ns(), std::memory_order_relaxed);
  return r.outcome;
}

Outcome Session::borrow_cpu(int cpu) {
  if (hint() != Hint::Enabled || over_cap()) return Outcome::Illegal;
  return table_->apply(cpu, CpuOp::Borrow, pid_).outcome;
}

Outcome Session::return_cpu(int cpu) { return table_->apply(cpu, CpuOp::Return, pid_).outcome; }

Outcome Session::acquire_cpu(int cpu) { return owns(cpu) ? reclaim_cpu(cpu) : borrow_cpu(cpu); }

int Session::lend_all(bool keep_current) {
  const int keep = keep_current ? current_cpu() : -1;
  int n = 0;
  for (int c = 0; c < table_->ncpus(); ++c) {
    const CpuWord w = table_->load(c);
    if (c == keep || !runs_on(w, pid_)) continue;
    n += lend_cpu(c) == Outcome::Done;
  }
  return n;
}

int Session::reclaim_all(std::vector<int>* got) {
  int n = 0;
  for (int c = 0; c < table_->ncpus(); ++c) {
    if (!owns(c)) continue;
    const Outcome o = reclaim_cpu(c);
    if (o == Outcome::Done && got) got->push_back(c);
    n += o == Outcome::Done || o == Outcome::Pending;
  }
  return n;
}

// Idle CPUs of other processes, nearest level first: each level's bitmap
// ANDed with the idle summary, so the table is read only where a CPU is
// idle (a few word loads at 128 CPUs); the CAS on the CPU's word decides.
int Session::borrow_up_to(int n, std::vector<int>* got) {
  if (n <= 0 || hint() != Hint::Enabled) return 0;
  if (const int cap = max_parallelism(); cap > 0) n = std::min(n, cap - held_count());
  const int ncpus = table_->ncpus(), words = table_->idle_words();
  const int levels = near_levels_.load(std::memory_order_acquire);
  int taken = 0;
  for (int l = 0; l < std::max(levels, 1) && taken < n; ++l) {
    for (int i = 0; i < words && taken < n; ++i) {
      std::uint64_t m = table_->idle_word(i) & ~lent_mask_[i].load(std::memory_order_relaxed);
      if (levels > 0) m &= near_[l][i].load(std::memory_order_relaxed);
      for (; m && taken < n; m &= m - 1) {
        const int c = i * 64 + __builtin_ctzll(m);
        if (c >= ncpus) break;
        const CpuWord w = table_->load(c);
        if (w.state != CpuState::Idle || w.owner == pid_) continue;
        if (table_->apply(c, CpuOp::Borrow, pid_).outcome != Outcome::Done) continue;
        ++taken;
        if (got) got->push_back(c);
      }
    }
  }
  return taken;
}

int Session::return_all() {
  int n = 0;
  for (int c = 0; c < table_->ncpus(); ++c)
    if (table_->load(c).guest == pid_) n += return_cpu(c) == Outcome::Done;
  return n;
}

int Session::return_claimed() {
  int n = 0;
  for (int c = 0; c < table_->ncpus(); ++c) {
    const CpuWord w = table_->load(c);
    if (w.state == CpuState::Claimed && w.guest == pid_) n += return_cpu(c) == Outcome::Done;
  }
  return n;
}

int Session::give_back(int n, std::vector<int>* given) {
  const int keep = current_cpu();
  int done = 0;
  for (int pass = 0; pass < 2 && done < n; ++pass) {  // borrowed CPUs first, then own
    for (int c = table_->ncpus() - 1; c >= 0 && done < n; --c) {
      const CpuWord w = table_->load(c);
      if (!runs_on(w, pid_) || c == keep) continue;
      const bool borrowed = w.guest == pid_;
      if (borrowed != (pass == 0)) continue;
      if ((borrowed ? return_cpu(c) : lend_cpu(c)) != Outcome::Done) continue;
      ++done;
      if (given) given->push_back(c);
    }
  }
  return done;
}

int Session::held_count() const {
  int n = 0;
  for (int c = 0; c < table_->ncpus(); ++c) n += runs_on(table_->load(c), pid_);
  return n;
}

bool Session::over_cap() const {
  const int cap = max_parallelism();
  return cap > 0 && held_count() >= cap;
}

int Session::available_now() const {
  int n = 0;
  for (int c = 0; c < table_->ncpus(); ++c) {
    const CpuWord w = table_->load(c);
    n += runs_on(w, pid_) && w.state != CpuState::Claimed;
    if (w.state == CpuState::Idle && (w.owner == pid_ || hint() == Hint::Enabled)) ++n;
  }
  const int cap = max_parallelism();
  return cap > 0 ? std::min(n, cap) : n;
}

std::vector<int> Session::held_cpus() const {
  std::vector<int> out;
  for (int c = 0; c < table_->ncpus(); ++c)
    if (runs_on(table_->load(c), pid_)) out.push_back(c);
  return out;
}

std::vector<int> Session::owned_cpus() const { return table_->owned_by(pid_); }

void Session::set_hint(Hint h) {
  if (h == Hint::Single) single_cpu_.store(current_cpu());  // before workers see Single
  const Hint old = hint_.exchange(h);
  if (h == old) return;
  if (h == Hint::Disabled || h == Hint::Enabled) {
    // Back to the default resources: own CPUs come home now; borrowed ones
    // are returned by their workers at the next task boundary (must_return).
    reclaim_all(nullptr);
    if (h == Hint::Disabled) max_par_.store(0);
  }
}

void Session::set_max_parallelism(int n) { max_par_.store(n > 0 ? n : 0); }

int Session::set_process_mask(pid_t pid, const std::vector<int>& cpus, unsigned timeout_ms,
                              std::string& why) {
  const long seq = table_->drom_request(pid, cpus, why);
  if (seq < 0) return int(seq);
  if (pid == pid_) {  // our own mask: apply it here and now
    std::vector<int> mask;
    poll_mask(mask);
  }
  if (timeout_ms == 0) return 0;
  if (!table_->drom_wait(pid, std::uint32_t(seq), timeout_ms)) {
    why = "process " + std::to_string(pid) + " did not apply the new mask within " +
          std::to_string(timeout_ms) + " ms (masks are applied at task boundaries)";
    return 1;
  }
  return 0;
}

}  // namespace joule::lending
