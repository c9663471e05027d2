#include "card_pool.hpp"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <exception>

#include "clock.hpp"

namespace joule::offload {
namespace {

thread_local int t_self = -1;

void pin(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);  // best effort
}

}  // namespace

CardPool::CardPool(std::vector<card_affinity::PuSlot> slots, int cores,
                   const std::vector<int>& host_cpus, CardCounters& counters)
    : counters_(counters) {
  for (int c = 0; c < cores; ++c) cores_.push_back(std::make_unique<Core>());
  const int ncpu = int(host_cpus.size());
  for (const card_affinity::PuSlot& s : slots) {
    auto t = std::make_unique<Thread>();
    t->slot = s;
    // Card cores in consecutive blocks per host CPU: neighbours share one.
    if (ncpu > 0) t->host_cpu = host_cpus[std::size_t(std::int64_t(s.core) * ncpu / cores)];
    threads_.push_back(std::move(t));
  }
  for (int i = 0; i < threads(); ++i)
    threads_[std::size_t(i)]->th = std::thread([this, i] { run(i); });
}

CardPool::~CardPool() {
  {
    std::lock_guard lk(m_);
    stop_ = true;
  }
  for (auto& t : threads_) t->cv.notify_all();
  for (auto& t : threads_) t->th.join();
}

int CardPool::self() noexcept { return t_self; }

void CardPool::submit(Job job) {
  std::lock_guard lk(m_);
  shared_.push_back(std::move(job));
  if (!idle_.empty()) {
    threads_[std::size_t(idle_.back())]->cv.notify_one();
    idle_.pop_back();
  }
}

// Dynamic power relative to f_max: (f/f_max)^3, the host power model's
// exponent (scheduler/platform/power_model.hpp).
double CardPool::power_scale() const {
  const double s = double(counters_.speed_permille.load(std::memory_order_relaxed)) / 1000.0;
  return s * s * s;
}

// Emulated DVFS, as the host's emulated backend does it: a card thread at
// f < f_max stays busy after its work for work_ns * (f_max/f - 1), so the
// work really takes f_max/f times as long.
void CardPool::stretch(std::uint64_t work_ns) const {
  const std::uint64_t s = counters_.speed_permille.load(std::memory_order_relaxed);
  if (s >= 1000 || s == 0) return;
  const std::uint64_t until = core::now_ns() + work_ns * (1000 - s) / s;
  while (core::now_ns() < until) {
  }
}

void CardPool::core_busy(int core, bool enter) {
  Core& c = *cores_[std::size_t(core)];
  std::lock_guard lk(c.m);
  if (enter) {
    if (c.active++ == 0) c.since = core::now_ns();
  } else if (--c.active == 0) {
    const std::uint64_t ns = core::now_ns() - c.since;
    counters_.core_busy_ns.fetch_add(ns, std::memory_order_relaxed);
    counters_.core_busy_wns.fetch_add(std::uint64_t(double(ns) * power_scale()),
                                      std::memory_order_relaxed);
  }
}

CardPool::WorkMark CardPool::mark() const {
  const int me = self();
  return {core::now_ns(), me < 0 ? 0 : threads_[std::size_t(me)]->in_team_ns};
}

// Stretched by the time this thread computed itself since m: parallel_for
// teams it led stretched their own chunks.
void CardPool::throttle(const WorkMark& m) const {
  const int me = self();
  if (me < 0) return;
  const std::uint64_t team = threads_[std::size_t(me)]->in_team_ns - m.team;
  stretch(core::now_ns() - m.start - team);
}

// Times outer jobs for the power model.
void CardPool::run_job(int index, Job& job) {
  Thread& t = *threads_[std::size_t(index)];
  const bool outer = t.depth++ == 0;
  const std::uint64_t start = core::now_ns();
  if (outer) core_busy(t.slot.core, true);
  job();  // jobs catch their own exceptions and throttle themselves
  if (outer) {
    core_busy(t.slot.core, false);
    const std::uint64_t ns = core::now_ns() - start;
    counters_.thread_busy_ns.fetch_add(ns, std::memory_order_relaxed);
    counters_.thread_busy_wns.fetch_add(std::uint64_t(double(ns) * power_scale()),
                                        std::memory_order_relaxed);
  }
  --t.depth;
}

void CardPool::run(int index) {
  t_self = index;
  Thread& t = *threads_[std::size_t(index)];
  pin(t.host_cpu);
  std::unique_lock lk(m_);
  for (;;) {
    std::deque<Job>& q = !t.mailbox.empty() ? t.mailbox : shared_;
    if (!q.empty()) {
      Job job = std::move(q.front());
      q.pop_front();
      lk.unlock();
      run_job(index, job);
      lk.lock();
      continue;
    }
    if (stop_) return;
    idle_.push_back(index);
    t.cv.wait(lk);
    std::erase(idle_, index);
  }
}

// Chunk i of [begin, end) for a team of n: fn over it, then the team's count.
CardPool::Job CardPool::team_chunk(const std::shared_ptr<Team>& team, int i) {
  return [this, team, i] {
    const std::int64_t len = team->end - team->begin;
    const std::int64_t lo = team->begin + len * i / team->n;
    const std::int64_t hi = team->begin + len * (i + 1) / team->n;
    try {
      const WorkMark m = mark();
      if (hi > lo) team->fn(team->ctx, lo, hi);
      throttle(m);  // before the caller learns the chunk is done
    } catch (...) {
      std::lock_guard g(team->m);
      if (!team->error) team->error = std::current_exception();
    }
    if (team->left.fetch_sub(1) == 1) {
      std::lock_guard g(m_);
      threads_[std::size_t(team->caller)]->cv.notify_all();
    }
  };
}

void CardPool::team_for(ChunkFn fn, void* ctx, std::int64_t begin, std::int64_t end) {
  const int me = self();
  const int n = threads();
  if (end <= begin) return;
  if (me < 0) return fn(ctx, begin, end);
  const std::uint64_t t0 = core::now_ns();
  if (n == 1 || end - begin <= 1) {  // inline, stretched like a team's chunk:
    const WorkMark m = mark();       // the caller sees the time at this P-state
    fn(ctx, begin, end);
    throttle(m);
    threads_[std::size_t(me)]->in_team_ns += core::now_ns() - t0;
    return;
  }
  auto team = std::make_shared<Team>();
  team->n = n;
  team->fn = fn;
  team->ctx = ctx;
  team->begin = begin;
  team->end = end;
  team->caller = me;
  team->left.store(n);
  {
    std::lock_guard lk(m_);
    for (int i = 0; i < n; ++i) {
      if (i == me) continue;
      threads_[std::size_t(i)]->mailbox.push_back(team_chunk(team, i));
      threads_[std::size_t(i)]->cv.notify_one();
    }
  }
  Job own = team_chunk(team, me);
  run_job(me, own);
  wait_team(*team);
  threads_[std::size_t(me)]->in_team_ns += core::now_ns() - t0;  // not the caller's own work
  if (team->error) std::rethrow_exception(team->error);
}

// Waits for the team's other chunks, running what other teams send here
// meanwhile (so two teams started at once cannot wait on each other).
void CardPool::wait_team(Team& team) {
  const int me = team.caller;
  Thread& t = *threads_[std::size_t(me)];
  std::unique_lock lk(m_);
  while (team.left.load() > 0) {
    if (t.mailbox.empty()) {
      t.cv.wait(lk);
      continue;
    }
    Job job = std::move(t.mailbox.front());
    t.mailbox.pop_front();
    lk.unlock();
    run_job(me, job);
    lk.lock();
  }
}

}  // namespace joule::offload
