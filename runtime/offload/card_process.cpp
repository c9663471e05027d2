#include "card_process.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "card_directory.hpp"
#include "card_pool.hpp"
#include "code_relocation.hpp"
#include "joule/types.hpp"

namespace joule::offload {
namespace {

struct MappedRegion {
  std::uint64_t host;
  std::uint64_t bytes;
  void* card;
};

// A kernel's view of the card: its regions and the card's threads.
class CardTaskContext final : public KernelContext {
 public:
  CardTaskContext(CardPool& pool, const MappedRegion* r, int n) : pool_(pool), regions_(r), n_(n) {}
  void* map(const void* host) const override {
    const auto a = reinterpret_cast<std::uint64_t>(host);
    for (int i = 0; i < n_; ++i)
      if (a >= regions_[i].host && a - regions_[i].host < regions_[i].bytes)
        return static_cast<char*>(regions_[i].card) + (a - regions_[i].host);
    throw joule::error(JOULE_ERR_INVALID,
                       "joule card: host address " + std::to_string(a) +
                           " is in none of the task's copied regions (name it in a dependency "
                           "with copy_deps, or in copy_in / copy_out / copy_inout)");
  }
  int threads() const override { return pool_.threads(); }
  void parallel_for(ChunkFn fn, void* ctx, std::int64_t b, std::int64_t e) override {
    pool_.team_for(fn, ctx, b, e);
  }

 private:
  CardPool& pool_;
  const MappedRegion* regions_;
  int n_;
};

struct Job {
  Command cmd;
  std::atomic<int> preds{1};  // 1: the registration guard
  std::mutex m;
  bool done = false;
  std::vector<std::shared_ptr<Job>> succ;
};
using JobPtr = std::shared_ptr<Job>;

class Card {
 public:
  Card(SharedArea* area, const CardSetup& s)
      : area_(area), setup_(s), pool_(s.slots, s.cores, s.host_cpus, area->counters) {
    area_->counters.threads.store(std::uint32_t(pool_.threads()));
    area_->counters.ready.store(1, std::memory_order_release);
  }
  // Dispatcher loop; returns on a stop command or when the host is gone.
  void serve();

 private:
  void add(JobPtr job);
  void edge(const JobPtr& pred, const JobPtr& succ);
  void ready(JobPtr job) {
    pool_.submit([this, job] { run(job); });
  }
  void run(const JobPtr& job);
  void execute(Command& c, std::string& error);
  void post(const Command& c, const std::string& error);

  struct RegionState {
    JobPtr writer;
    std::vector<JobPtr> readers;
  };
  SharedArea* area_;
  CardSetup setup_;
  CardDirectory directory_;
  std::unordered_map<std::uint64_t, RegionState> regions_;  // dispatcher thread only
  std::mutex post_mutex_;                                   // card threads share one producer side
  std::atomic<int> in_flight_{0};
  std::optional<Relocator> relocator_;  // attach mode: set before the first job runs
  CardPool pool_;                       // last: its threads stop before the rest goes
};

void Card::serve() {
  for (;;) {
    Command* c = area_->commands.front();
    if (!c) {
      if (getppid() != setup_.host_pid) return;  // the host died
      area_->commands.wait(50'000'000);
      continue;
    }
    if (c->op == Op::stop) {
      area_->commands.pop();
      while (in_flight_.load() > 0) usleep(1000);
      return;
    }
    if (!relocator_ && area_->modules.count) {  // written by the host before its first command
      relocator_.emplace(area_->modules);
      install_relocator(&*relocator_);
    }
    auto job = std::make_shared<Job>();
    job->cmd = *c;
    area_->commands.pop();
    add(std::move(job));
  }
}

void Card::edge(const JobPtr& pred, const JobPtr& succ) {
  if (pred == succ) return;  // two regions of one job share a start address
  std::lock_guard lk(pred->m);
  if (pred->done) return;
  succ->preds.fetch_add(1);
  pred->succ.push_back(succ);
}

// Writers (and copies in) wait for the last writer and the readers since;
// readers for the last writer. Keyed by region start, as the directory is.
void Card::add(JobPtr job) {
  in_flight_.fetch_add(1);
  const Command& c = job->cmd;
  for (std::uint32_t i = 0; i < c.regions; ++i) {
    RegionState& st = regions_[c.region[i].host];
    if (st.writer) edge(st.writer, job);
    // A copy-in writes the card's copy: later readers that found it current
    // on the host's record must wait for it.
    if (c.region[i].access & kOut || c.region[i].to_card || c.op == Op::release) {
      for (const JobPtr& r : st.readers) edge(r, job);
      st.readers.clear();
      st.writer = job;
    } else {
      std::erase_if(st.readers, [&](const JobPtr& r) {
        if (r == job) return true;
        std::lock_guard lk(r->m);
        return r->done;
      });
      st.readers.push_back(job);
    }
  }
  if (job->preds.fetch_sub(1) == 1) ready(std::move(job));
}

void Card::execute(Command& c, std::string& error) {
  MappedRegion mapped[kMaxRegions];
  unsigned char* staging = area_->staging();
  for (std::uint32_t i = 0; i < c.regions; ++i) {
    const WireRegion& r = c.region[i];
    if (c.op == Op::release) {
      directory_.release(r.host);
      continue;
    }
    mapped[i] = {r.host, r.bytes, directory_.acquire(r.host, r.bytes)};
    if (r.to_card) {
      std::memcpy(mapped[i].card, staging + r.staging, r.bytes);
      area_->counters.card_bytes.fetch_add(r.bytes, std::memory_order_relaxed);
    }
  }
  if (c.op == Op::release) return;
  if (c.fn) {
    CardTaskContext ctx(pool_, mapped, int(c.regions));
    try {
      // A daemon's worker has the host's code at other addresses.
      const auto fn = reinterpret_cast<CardFn>(
          const_cast<void*>(relocate_host_code(reinterpret_cast<const void*>(c.fn))));
      fn(c.args, &ctx);
    } catch (const std::exception& e) {
      error = e.what();
    } catch (...) {
      error = "joule card: the task threw a non-standard exception";
    }
  }
  for (std::uint32_t i = 0; i < c.regions; ++i) {
    const WireRegion& r = c.region[i];
    if (r.access & kOut) directory_.wrote(r.host);
    if (!r.to_host || !error.empty()) continue;
    std::memcpy(staging + r.staging, mapped[i].card, r.bytes);
    area_->counters.card_bytes.fetch_add(r.bytes, std::memory_order_relaxed);
  }
}

void Card::run(const JobPtr& job) {
  std::string error;
  const CardPool::WorkMark mark = pool_.mark();
  try {
    execute(job->cmd, error);
  } catch (const std::exception& e) {
    error = e.what();
  }
  pool_.throttle(mark);  // a slower P-state: the host sees the result later
  area_->counters.jobs.fetch_add(1, std::memory_order_relaxed);
  post(job->cmd, error);
  std::vector<JobPtr> succ;
  {
    std::lock_guard lk(job->m);
    job->done = true;
    succ.swap(job->succ);
  }
  for (JobPtr& s : succ)
    if (s->preds.fetch_sub(1) == 1) ready(std::move(s));
  in_flight_.fetch_sub(1);
}

void Card::post(const Command& c, const std::string& error) {
  std::lock_guard lk(post_mutex_);
  Result* r;
  while (!(r = area_->results.slot())) usleep(100);  // the host pump drains it
  r->id = c.id;
  r->ok = error.empty();
  std::snprintf(r->error, sizeof r->error, "%s", error.c_str());
  area_->results.publish();
}

}  // namespace

void card_main(SharedArea* area, const CardSetup& setup) {
  // The card goes when the host goes, whatever killed it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != setup.host_pid) _exit(0);
  {
    Card card(area, setup);
    card.serve();
  }
  _exit(0);
}

}  // namespace joule::offload
