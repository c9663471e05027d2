// Node-scale decision costs, for instruction counts under callgrind
// (scripts/callgrind-node-scale): the lending session's acquire (borrow one
// idle CPU of another process, give it back), lend + reclaim of an own CPU
// and the per-task check (must_return) on a node table of N CPUs; and one
// energy-controller decision (queue-depth: observe, decide, publish, apply)
// plus the owners' task-boundary applies at N workers on N per-core
// emulated DVFS domains. Synthetic state, no worker threads: what is counted
// is the call itself, the same at every N except where it must grow.
//
//   node_scale_costs --n 16 [--calls 2000 --decisions 200]
//
// Each phase runs between CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT
// (its name), so each dump holds exactly `calls` (or `decisions`) calls.
// Without valgrind it prints ns per call from the clock, which on a shared
// host is only indicative.
#include "callgrind_marks.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "clock.hpp"
#include "config.hpp"
#include "controller.hpp"
#include "lewi_session.hpp"
#include "observer.hpp"
#include "platform.hpp"
#include "runtime.hpp"
#include "topology.hpp"
#include "worker_slot.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace lending = joule::lending;

struct Args {
  int n = 16;
  int calls = 2000;
  int decisions = 200;
};

void report(const char* phase, int n, int calls, Clock::time_point t0) {
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  std::printf("phase %s n %d calls %d ns_per_call %.0f\n", phase, n, calls, ns / calls);
}

// Our process owns the first half of an N-CPU table; a live other process
// (our parent) owns the second half and lends it all.
void lending_phases(const Args& a) {
  const std::string name = "/joule-bench-scale-" + std::to_string(::getpid());
  ::shm_unlink(name.c_str());
  {
    auto t = lending::CpuTable::open_shared(name);
    t->segment()->header.ncpus = std::uint32_t(a.n);
  }
  lending::LewiOptions o;
  o.mode = "node";
  o.shm = name;
  const int half = std::max(1, a.n / 2);
  std::vector<int> owned;
  for (int c = 0; c < half; ++c) owned.push_back(c);
  auto s = lending::Session::join(o, owned);
  lending::CpuTable& t = s->table();
  const pid_t other = ::getppid();
  for (int c = half; c < a.n; ++c) {
    t.apply(c, lending::CpuOp::Own, other);
    t.apply(c, lending::CpuOp::Lend, other);
  }
  // Two packages: ours and the other's (an hwloc synthetic machine).
  const std::string synth = "pack:2 core:" + std::to_string(half) + " pu:1";
  joule::engine::Topology topo(synth.c_str());
  s->set_nearness(joule::engine::nearness_levels(topo, owned));
  std::vector<int> got;
  got.reserve(4);
  for (int i = 0; i < 10; ++i) {  // warm-up
    s->acquire(1, got);
    for (int c : got) s->return_cpu(c);
    got.clear();
  }
  CALLGRIND_ZERO_STATS;
  auto t0 = Clock::now();
  for (int i = 0; i < a.calls; ++i) {
    s->acquire(1, got);
    for (int c : got) s->return_cpu(c);
    got.clear();
  }
  CALLGRIND_DUMP_STATS_AT("acquire");
  report("acquire", a.n, a.calls, t0);
  CALLGRIND_ZERO_STATS;
  t0 = Clock::now();
  for (int i = 0; i < a.calls; ++i) {
    s->lend_cpu(half - 1);
    s->reclaim_cpu(half - 1);
  }
  CALLGRIND_DUMP_STATS_AT("lend_reclaim");
  report("lend_reclaim", a.n, a.calls, t0);
  CALLGRIND_ZERO_STATS;
  t0 = Clock::now();
  int parks = 0;
  for (int i = 0; i < a.calls; ++i) parks += s->must_return(0);
  CALLGRIND_DUMP_STATS_AT("must_return");
  report("must_return", a.n, a.calls, t0);
  if (parks) std::printf("unexpected: must_return said park %d times\n", parks);
  for (int c = half; c < a.n; ++c) t.apply(c, lending::CpuOp::Disown, other);
  s.reset();
  ::shm_unlink(name.c_str());
}

// N workers on N per-core emulated domains of a synthetic machine, with
// queue-depth; each decision sees a new window of synthetic work.
void controller_phase(const Args& a) {
  const std::string topo = "package:1 core:" + std::to_string(a.n) + " pu:1";
  const auto cfg = joule::core::Config::load({{"JOULE_DVFS", "emulated"},
                                              {"JOULE_TOPOLOGY", topo},
                                              {"JOULE_ENERGY_POLICY", "queue-depth"},
                                              {"JOULE_DVFS_LATENCY_US", "0"}});
  joule::platform::Platform p(cfg);
  auto owned = std::make_unique<joule::control::Controller>(p, cfg);
  joule::control::Controller* ctl = owned.get();
  p.set_listener(std::move(owned));
  joule::core::RunInfo run;
  for (int w = 0; w < a.n; ++w) run.worker_cpus.push_back(w);
  std::vector<int> ready(std::size_t(a.n), 0);
  run.ready_of = [&ready](int w) { return ready[std::size_t(w)]; };
  p.begin(run);
  std::uint64_t now = joule::core::now_ns();
  auto window = [&](int k) {
    for (int w = 0; w < a.n; ++w) {
      auto& s = p.slot(w);
      const std::uint64_t work = std::uint64_t(((w * 7 + k * 3) % 10) + 1) * 1'000'000;
      s.busy_ns.fetch_add(work);
      s.work_ns.fetch_add(work);
      s.in_task.store((w + k) % 3 != 0);
      ready[std::size_t(w)] = (w + k) % 5 == 0 ? 2 : 0;
    }
    now += 20'000'000;  // past the window: the next task end decides
  };
  for (int k = 0; k < 10; ++k) {  // warm-up
    window(k);
    ctl->tick(now);
    for (int w = 0; w < a.n; ++w) ctl->at_boundary(w);
  }
  const std::uint64_t before = ctl->decisions();
  CALLGRIND_ZERO_STATS;
  auto t0 = Clock::now();
  for (int k = 0; k < a.decisions; ++k) {
    window(k);
    ctl->tick(now);  // one decision on this thread, as a worker's task end
  }
  CALLGRIND_DUMP_STATS_AT("decide");
  report("decide", a.n, a.decisions, t0);
  CALLGRIND_ZERO_STATS;
  t0 = Clock::now();
  for (int k = 0; k < a.decisions; ++k)
    for (int w = 0; w < a.n; ++w) ctl->at_boundary(w);  // nothing new: the hot-path check
  CALLGRIND_DUMP_STATS_AT("boundary");
  report("boundary", a.n, a.decisions * a.n, t0);
  std::printf("decisions %llu\n", static_cast<unsigned long long>(ctl->decisions() - before));
  p.end();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (k == "--n")
      a.n = v;
    else if (k == "--calls")
      a.calls = v;
    else if (k == "--decisions")
      a.decisions = v;
    else {
      std::fprintf(stderr, "node_scale_costs: unknown option %s (--n, --calls, --decisions)\n",
                   argv[i]);
      return 2;
    }
  }
  if (a.n < 2 || a.n > 1024 || a.calls < 1 || a.decisions < 1) {
    std::fprintf(stderr, "node_scale_costs: --n must be 2..1024, --calls and --decisions >= 1\n");
    return 2;
  }
  lending_phases(a);
  controller_phase(a);
  return 0;
}
