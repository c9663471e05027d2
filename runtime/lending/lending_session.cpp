// The session's lifecycle: joining, owning, leaving, reaping.
#include "lending_session.hpp"

#include <unistd.h>
#include <algorithm>

#include "config.hpp"
#include "lending_settings.hpp"
#include "os_support.hpp"

namespace joule::lending {
namespace {

std::mutex g_mutex;
std::weak_ptr<Session> g_session;

std::unique_ptr<CpuTable> open_table(const LendingOptions& o) {
  if (o.mode == "local") return CpuTable::open_private();
  return CpuTable::open_shared(o.shm.empty() ? CpuTable::default_name() : o.shm);
}

}  // namespace

LendingOptions options_from(const core::Config& cfg) {
  LendingOptions o;
  const LendingSettings& s = cfg.get<LendingSettings>();
  o.mode = s.mode == LewiMode::local ? "local" : "node";
  o.policy = core::choice_name(core::Choices<LewiPolicy>(kLewiPolicies), s.policy);
  o.shm = s.shm;
  o.keep_cpu = s.keeps_cpu();
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

std::shared_ptr<Session> Session::join(const LendingOptions& opts, const std::vector<int>& owned) {
  std::lock_guard guard(g_mutex);
  if (auto s = g_session.lock(); s && s->pid_ == ::getpid()) {
    s->own(owned);
    return s;
  }
  auto s = open(opts, owned, ::getpid());
  g_session = s;
  return s;
}

std::shared_ptr<Session> Session::join_subprocess(const LendingOptions& opts,
                                                  const std::vector<int>& owned, int number) {
  if (number < 1 || number >= (1 << (CpuWord::kPidBits - kOsPidBits)))
    throw TableError(TableError::Kind::Full, "joule: too many subprocess handles");
  return open(opts, owned, ::getpid() | pid_t(number) << kOsPidBits);
}

std::shared_ptr<Session> Session::open(const LendingOptions& opts, const std::vector<int>& owned,
                                       pid_t id) {
  for (int attempt = 0;; ++attempt) {
    std::shared_ptr<Session> s(new Session(opts, open_table(opts), id));
    try {
      s->slot_ = s->table_->registry().register_process(s->pid_, opts.mode == "local" ? 1 : 2);
      s->drom_.start(s->slot_);
    } catch (const TableError& e) {
      // The last user removed the segment between our open and register.
      if (e.kind() == TableError::Kind::Busy && attempt < 20) continue;
      throw;
    }
    s->table_->registry().reap_dead();  // stale CPUs of dead processes go back first
    s->own(owned);                      // on a conflict the destructor gives back what was taken
    return s;
  }
}

Session::Session(LendingOptions opts, std::unique_ptr<CpuTable> table, pid_t id)
    : opts_(std::move(opts)),
      table_(std::move(table)),
      pid_(id),
      autonomous_(opts_.policy != "mpi"),
      drom_(*table_, pid_, local_),
      loans_(*table_, pid_, hints_, nearness_, opts_.reclaim_timeout_ms) {}

Session::~Session() {
  if (os_pid(pid_) != ::getpid()) return;  // a forked child's copy: the parent owns the CPUs
  if (slot_ >= 0) table_->registry().unregister_process(slot_);
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
    for (const auto& p : table_->registry().processes())
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

void Session::maybe_reap() {
  const std::uint64_t now = monotonic_ns();
  std::uint64_t prev = last_reap_ns_.load(std::memory_order_relaxed);
  if (now - prev < 50'000'000ull) return;
  if (!last_reap_ns_.compare_exchange_strong(prev, now, std::memory_order_relaxed)) return;
  if (table_->registry().reap_dead() >= 0) loans_.recount_lent();  // a dead guest's CPUs came back
  loans_.revoke_overdue(now, slot_);
}

void Session::set_hint(Hint h) {
  const Hint old = hints_.exchange(h, h == Hint::Single ? current_cpu() : -1);
  if (h == old) return;
  if (h == Hint::Disabled || h == Hint::Enabled) {
    // Back to the default resources: own CPUs come home now; borrowed ones
    // are returned by their workers at the next task boundary (must_return).
    loans_.reclaim_all(nullptr);
    if (h == Hint::Disabled) hints_.set_max_parallelism(0);
  }
}

}  // namespace joule::lending
