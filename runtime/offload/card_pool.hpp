// The emulated card's worker threads (card process only): cores ×
// threads_per_core threads placed compact / scatter / balanced with
// joule::placement, each pinned to the host CPU its card core is mapped to
// (consecutive card cores share a host CPU, so a compact placement really
// uses fewer host CPUs). Tasks go to any idle thread; a parallel_for hands
// chunk i to thread i. Busy time per thread and per core feeds the card's
// power model; at a P-state below the highest, work is stretched to
// emulate the slower clock (emulated DVFS).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "card_protocol.hpp"
#include "card_topology.hpp"
#include "kernel_context.hpp"

namespace joule::offload {

class CardPool {
 public:
  using Job = std::function<void()>;

  CardPool(std::vector<card_affinity::PuSlot> slots, int cores, const std::vector<int>& host_cpus,
           CardCounters& counters);
  ~CardPool();  // runs what is queued, then joins
  CardPool(const CardPool&) = delete;
  CardPool& operator=(const CardPool&) = delete;

  int threads() const noexcept { return int(threads_.size()); }
  // Any thread runs it.
  void submit(Job job);
  // fn over [begin, end) in one chunk per thread; from a card thread (which
  // runs its own chunk and, while waiting, whatever is sent to it).
  void team_for(ChunkFn fn, void* ctx, std::int64_t begin, std::int64_t end);
  // The calling card thread's index, -1 elsewhere.
  static int self() noexcept;
  // Emulated DVFS: a job marks where its work starts and, once done and
  // before it reports, throttles: stays busy so that its own work took
  // f_max/f times as long (no-op at the highest P-state or off the card).
  struct WorkMark {
    std::uint64_t start, team;
  };
  WorkMark mark() const;
  void throttle(const WorkMark& m) const;

 private:
  struct Thread {
    card_affinity::PuSlot slot;
    int host_cpu = -1;
    std::condition_variable cv;
    std::deque<Job> mailbox;       // jobs for this thread only (team chunks)
    int depth = 0;                 // nested jobs: only the outermost is timed
    std::uint64_t in_team_ns = 0;  // time in parallel_for teams it led (not stretched as its own)
    std::thread th;
  };
  // One parallel_for: chunk i runs on thread i; `caller` waits for the rest.
  struct Team {
    int n = 0;
    ChunkFn fn = nullptr;
    void* ctx = nullptr;
    std::int64_t begin = 0, end = 0;
    int caller = -1;
    std::atomic<int> left{0};
    std::mutex m;
    std::exception_ptr error;
  };
  struct Core {
    std::mutex m;
    int active = 0;
    std::uint64_t since = 0;
  };
  void run(int index);
  void run_job(int index, Job& job);
  void core_busy(int core, bool enter);
  double power_scale() const;
  void stretch(std::uint64_t work_ns) const;
  Job team_chunk(const std::shared_ptr<Team>& team, int i);
  void wait_team(Team& team);

  std::vector<std::unique_ptr<Thread>> threads_;
  std::vector<std::unique_ptr<Core>> cores_;
  std::mutex m_;  // guards the queues and idle_
  std::deque<Job> shared_;
  std::vector<int> idle_;
  bool stop_ = false;
  CardCounters& counters_;
};

}  // namespace joule::offload
