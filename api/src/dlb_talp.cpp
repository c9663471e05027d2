// TALP's monitoring regions (DLB API reference, dlb_talp.h) answered from
// what joule measures for a process: wall-clock time, the CPU time of the
// process (its "useful" time: joule's POP useful time is task-body time and
// needs a trace, while a DLB program may run no joule tasks at all), and the
// CPUs it holds in the node table. MPI time is the time threads spent inside
// the blocking MPI calls libjoule-mpi interposes (joule_trace_mpi_enter /
// leave); their CPU time is not useful. OpenMP times are not measured: their
// fields stay 0, and the MPI and OpenMP efficiencies NAN (docs/dlb-api.md).
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "dlb_internal.hpp"
#include "joule/dlb/dlb_talp.h"
#include "lending_entry.hpp"

namespace joule::dlb {
namespace {

// Totals over the process's threads since DLB_Init of the time in MPI calls.
std::atomic<bool> g_mpi_on{false};
std::atomic<std::int64_t> g_mpi_wall_ns{0}, g_mpi_cpu_ns{0}, g_mpi_calls{0};
thread_local std::int64_t t_mpi_wall0 = -1, t_mpi_cpu0 = 0;

// The wall clock is read on both sides of the CPU clock, and an interval
// runs from its first mark's wall0 to its last mark's wall1: the CPU time of
// one thread then never exceeds the interval's elapsed time.
struct Mark {
  std::int64_t wall0 = 0, cpu = 0, wall1 = 0, mpi_wall = 0, mpi_cpu = 0, mpi_calls = 0;
  std::int64_t observer_cpu = 0;  // of observer threads (DLB_SetObserverRole): not useful
};

struct Region {
  dlb_monitor_t mon{};
  std::string name;
  bool running = false;
  Mark mark;                   // where the running interval began
  double cpu_ns_weighted = 0;  // sum of held CPUs x ns, for avg_cpus
  std::uint64_t opened = 0;    // start order, for DLB_LAST_OPEN_REGION
};

std::map<std::string, std::unique_ptr<Region>> g_regions;
Region* g_global = nullptr;
std::uint64_t g_opened = 0;  // regions started so far

std::int64_t clock_ns(clockid_t id) {
  timespec ts{};
  ::clock_gettime(id, &ts);
  return std::int64_t(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

Mark now_mark() {
  Mark m;
  m.wall0 = clock_ns(CLOCK_MONOTONIC);
  m.cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  m.observer_cpu = observer_cpu_ns();
  m.wall1 = clock_ns(CLOCK_MONOTONIC);
  m.mpi_wall = g_mpi_wall_ns.load();
  m.mpi_cpu = g_mpi_cpu_ns.load();
  m.mpi_calls = g_mpi_calls.load();
  return m;
}

int held_cpus() {
  if (auto s = lending::active_session()) return int(s->loans().held_cpus().size());
  return int(lending::affinity_cpus().size());
}

// Adds the running interval up to now to the region's totals and starts a
// new interval, so the fields are current (Update, Stop, queries).
void fold(Region& r) {
  if (!r.running) return;
  const Mark m = now_mark();
  const int cpus = held_cpus();
  const std::int64_t wall = m.wall1 - r.mark.wall0;
  const std::int64_t cpu =
      (m.cpu - r.mark.cpu) - (m.mpi_cpu - r.mark.mpi_cpu) - (m.observer_cpu - r.mark.observer_cpu);
  r.mon.elapsed_time += wall;
  r.mon.useful_time += std::max<std::int64_t>(0, cpu);
  r.mon.mpi_time += m.mpi_wall - r.mark.mpi_wall;
  r.mon.num_mpi_calls += m.mpi_calls - r.mark.mpi_calls;
  r.cpu_ns_weighted += double(cpus) * double(wall);
  r.mon.num_cpus = cpus;
  r.mon.avg_cpus =
      r.mon.elapsed_time ? float(r.cpu_ns_weighted / double(r.mon.elapsed_time)) : float(cpus);
  r.mark = m;
  talp_publish(r.name, r.mon.useful_time, r.mon.mpi_time);
}

void start(Region& r) {
  r.running = true;
  r.opened = ++g_opened;
  r.mark = now_mark();
  r.mon.start_time = clock_ns(CLOCK_REALTIME);
  r.mon.num_cpus = held_cpus();
  talp_publish(r.name, r.mon.useful_time, r.mon.mpi_time);  // readers see the region at once
}

Region* region_named(const std::string& name) {
  auto& slot = g_regions[name];
  if (!slot) {
    slot = std::make_unique<Region>();
    slot->name = name;
    slot->mon.name = slot->name.c_str();
    slot->mon._data = slot.get();
  }
  return slot.get();
}

// The region of a handle (NULL: the global one; DLB_LAST_OPEN_REGION: the
// running region started last, the global one aside), or null if none.
Region* region_of(const dlb_monitor_t* h) {
  if (!h) return g_global;
  if (h == DLB_LAST_OPEN_REGION) {
    Region* last = nullptr;
    for (const auto& [name, r] : g_regions)
      if (r.get() != g_global && r->running && (!last || r->opened > last->opened)) last = r.get();
    return last;
  }
  for (const auto& [name, r] : g_regions)
    if (&r->mon == h) return r.get();
  return nullptr;
}

template <class F>
int with_region(const dlb_monitor_t* h, F&& f) {
  std::lock_guard guard(api_mutex());
  if (!initialised() || !g_global) return DLB_ERR_NOTALP;
  Region* r = region_of(h);
  return r ? f(*r) : DLB_ERR_NOENT;
}

void collect(const Region& r, dlb_pop_metrics_t* pop) {
  *pop = dlb_pop_metrics_t{};
  std::snprintf(pop->name, sizeof pop->name, "%s", r.name.c_str());
  pop->num_cpus = r.mon.num_cpus;
  pop->num_nodes = 1;
  pop->avg_cpus = r.mon.avg_cpus;
  pop->num_measurements = r.mon.num_measurements;
  pop->elapsed_time = r.mon.elapsed_time;
  pop->useful_time = r.mon.useful_time;
  pop->mpi_time = r.mon.mpi_time;
  pop->num_mpi_calls = r.mon.num_mpi_calls;
  pop->num_mpi_ranks = r.mon.num_mpi_calls > 0 ? 1 : 0;  // this process only
  // POP's parallel efficiency, as joule's trace report defines it
  // (runtime/trace/pop_metrics.hpp): useful / (CPUs x elapsed).
  const double capacity = double(r.mon.avg_cpus) * double(r.mon.elapsed_time);
  pop->parallel_efficiency = capacity > 0 ? float(double(r.mon.useful_time) / capacity) : 0.f;
  const float na = std::nanf("");
  pop->mpi_parallel_efficiency = pop->mpi_communication_efficiency = na;
  pop->mpi_load_balance = pop->mpi_load_balance_in = pop->mpi_load_balance_out = na;
  pop->omp_parallel_efficiency = pop->omp_load_balance = na;
  pop->omp_scheduling_efficiency = pop->omp_serialization_efficiency = na;
}

void print(const Region& r, FILE* out) {
  dlb_pop_metrics_t pop;
  collect(r, &pop);
  std::fprintf(out,
               "DLB: region '%s': measurements %d, resets %d, cpus %d (avg %.2f)\n"
               "DLB:   elapsed %.6f s, useful %.6f s, mpi %.6f s in %lld calls\n"
               "DLB:   parallel efficiency %.3f (useful / (elapsed x avg cpus))\n",
               r.name.c_str(), r.mon.num_measurements, r.mon.num_resets, r.mon.num_cpus,
               double(r.mon.avg_cpus), double(r.mon.elapsed_time) * 1e-9,
               double(r.mon.useful_time) * 1e-9, double(r.mon.mpi_time) * 1e-9,
               (long long)r.mon.num_mpi_calls, double(pop.parallel_efficiency));
}

}  // namespace

void talp_mpi_enter() {
  if (!g_mpi_on.load(std::memory_order_relaxed) || thread_is_observer()) return;
  t_mpi_wall0 = clock_ns(CLOCK_MONOTONIC);
  t_mpi_cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void talp_mpi_leave() {
  if (t_mpi_wall0 < 0) return;  // entered before DLB_Init
  g_mpi_wall_ns.fetch_add(clock_ns(CLOCK_MONOTONIC) - t_mpi_wall0);
  g_mpi_cpu_ns.fetch_add(clock_ns(CLOCK_THREAD_CPUTIME_ID) - t_mpi_cpu0);
  g_mpi_calls.fetch_add(1);
  t_mpi_wall0 = -1;
}

void talp_init() {
  g_mpi_on.store(true);
  g_global = region_named(DLB_GLOBAL_REGION_NAME);
  start(*g_global);
}

void talp_finalize() {
  talp_unpublish();
  g_mpi_on.store(false);
  g_global = nullptr;
  g_regions.clear();
}

}  // namespace joule::dlb

using namespace joule::dlb;

extern "C" {

dlb_monitor_t* DLB_MonitoringRegionGetGlobal(void) {
  std::lock_guard guard(api_mutex());
  return g_global ? &g_global->mon : nullptr;
}

dlb_monitor_t* DLB_MonitoringRegionGetImplicit(void) { return DLB_MonitoringRegionGetGlobal(); }

const dlb_monitor_t* DLB_MonitoringRegionGetMPIRegion(void) {
  return DLB_MonitoringRegionGetGlobal();
}

dlb_monitor_t* DLB_MonitoringRegionRegister(const char* name) {
  std::lock_guard guard(api_mutex());
  if (!initialised() || !g_global) return nullptr;
  return &region_named(name && *name ? name : DLB_GLOBAL_REGION_NAME)->mon;
}

int DLB_MonitoringRegionStart(dlb_monitor_t* handle) {
  return with_region(handle, [](Region& r) {
    if (thread_is_observer()) return int(DLB_ERR_PERM);
    if (r.running) return int(DLB_NOUPDT);
    start(r);
    return int(DLB_SUCCESS);
  });
}

int DLB_MonitoringRegionStop(dlb_monitor_t* handle) {
  return with_region(handle, [](Region& r) {
    if (thread_is_observer()) return int(DLB_ERR_PERM);
    if (!r.running) return int(DLB_NOUPDT);
    fold(r);
    r.running = false;
    r.mon.stop_time = clock_ns(CLOCK_REALTIME);
    ++r.mon.num_measurements;
    return int(DLB_SUCCESS);
  });
}

int DLB_MonitoringRegionReset(dlb_monitor_t* handle) {
  return with_region(handle, [](Region& r) {
    const int resets = r.mon.num_resets + 1;
    const char* name = r.mon.name;
    r.mon = dlb_monitor_t{};
    r.mon.name = name;
    r.mon._data = &r;
    r.mon.num_resets = resets;
    r.cpu_ns_weighted = 0;
    if (r.running) start(r);
    return int(DLB_SUCCESS);
  });
}

int DLB_MonitoringRegionReport(const dlb_monitor_t* handle) {
  return with_region(handle, [](Region& r) {
    fold(r);
    print(r, stderr);
    return int(DLB_SUCCESS);
  });
}

int DLB_MonitoringRegionsUpdate(void) {
  std::lock_guard guard(api_mutex());
  if (!initialised() || !g_global) return DLB_ERR_NOTALP;
  for (auto& [name, r] : g_regions) fold(*r);
  return DLB_SUCCESS;
}

int DLB_TALP_CollectPOPMetrics(dlb_monitor_t* monitor, dlb_pop_metrics_t* pop) {
  if (!pop) return DLB_ERR_UNKNOWN;
  return with_region(monitor, [pop](Region& r) {
    fold(r);
    collect(r, pop);
    return int(DLB_SUCCESS);
  });
}

int DLB_TALP_CollectPOPNodeMetrics(dlb_monitor_t* monitor, dlb_node_metrics_t* node_metrics) {
  if (!node_metrics) return DLB_ERR_UNKNOWN;
  std::string name;
  int rc = with_region(monitor, [&name](Region& r) {
    fold(r);  // publishes this process's totals
    name = r.name;
    return int(DLB_SUCCESS);
  });
  // Every process published before anyone reads, and nobody publishes again
  // before everyone read: the node's default barrier on both sides.
  if (rc == DLB_SUCCESS) rc = DLB_Barrier();
  if (rc != DLB_SUCCESS) return rc;
  {
    std::lock_guard guard(api_mutex());
    rc = talp_query_node(name.c_str(), node_metrics);
  }
  const int after = DLB_Barrier();
  return rc == DLB_SUCCESS ? after : rc;
}

int DLB_TALP_CollectNodeMetrics(dlb_monitor_t* monitor, dlb_node_metrics_t* node_metrics) {
  return DLB_TALP_CollectPOPNodeMetrics(monitor, node_metrics);
}

int DLB_TALP_GetTimes(int pid, double* mpi_time, double* useful_time) {
  if (pid != 0 && pid_t(pid) != ::getpid()) return DLB_ERR_NOCOMP;  // not published
  return with_region(nullptr, [&](Region& r) {
    fold(r);
    if (mpi_time) *mpi_time = double(r.mon.mpi_time) * 1e-9;
    if (useful_time) *useful_time = double(r.mon.useful_time) * 1e-9;
    return int(DLB_SUCCESS);
  });
}

int DLB_TALP_Attach(void) { return DLB_DROM_Attach(); }
int DLB_TALP_Detach(void) { return DLB_DROM_Detach(); }
int DLB_TALP_GetNumCPUs(int* ncpus) { return DLB_DROM_GetNumCpus(ncpus); }
int DLB_TALP_GetPidList(int* pidlist, int* nelems, int max_len) {
  return DLB_DROM_GetPidList(pidlist, nelems, max_len);
}

}  // extern "C"
