// DLB's statistics API (dlb_stats.h; docs/dlb-api.md) on the node table: the
// processes and the CPUs they run on come from the table, their CPU usage
// from their CPU time in /proc (utime + stime over the time since they
// started, or since this monitor's previous query of the same pid). The
// load average and the time spent per CPU state are not kept by joule:
// DLB_ERR_NOCOMP.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "dlb_internal.hpp"
#include "joule/dlb/dlb_stats.h"

namespace joule::dlb {
namespace {

std::unique_ptr<lending::CpuTable> g_table;  // DLB_Stats_Init's; api_mutex held

struct Sample {
  double cpu_s = 0, age_s = 0;  // CPU seconds used, seconds since it started
};
std::map<pid_t, Sample> g_last;  // the previous query of each pid

// pid's CPU time and age from /proc/<pid>/stat (fields 14, 15 and 22 after
// the command, proc(5)); false when it is gone.
bool proc_sample(pid_t pid, Sample& s) {
  char path[64], buf[1024];
  std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');
  unsigned long long utime = 0, stime = 0, start = 0;
  if (!p || std::sscanf(p + 2,
                        "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d "
                        "%*d %*d %llu",
                        &utime, &stime, &start) != 3)
    return false;
  double uptime = 0;
  FILE* u = std::fopen("/proc/uptime", "r");
  if (!u || std::fscanf(u, "%lf", &uptime) != 1) uptime = 0;
  if (u) std::fclose(u);
  const double hz = double(::sysconf(_SC_CLK_TCK));
  s.cpu_s = double(utime + stime) / hz;
  s.age_s = uptime - double(start) / hz;
  return s.age_s > 0;
}

// Percent of one CPU; -1.0 (DLB's "not found") for a pid not in the table.
double usage_of(lending::CpuTable& t, pid_t pid, bool average) {
  Sample s;
  if (t.registry().find_slot(pid) < 0 || !proc_sample(pid, s)) return -1.0;
  Sample base;  // zero: since it started
  if (!average) {
    auto it = g_last.find(pid);
    if (it != g_last.end() && s.age_s > it->second.age_s) base = it->second;
    g_last[pid] = s;
  }
  return 100.0 * (s.cpu_s - base.cpu_s) / (s.age_s - base.age_s);
}

int active_cpus(lending::CpuTable& t, pid_t pid) {
  int n = 0;
  for (int c = 0; c < t.ncpus(); ++c) n += lending::runs_on(t.load(c), pid) ? 1 : 0;
  return n;
}

template <class F>
int with_table(F&& f) {
  std::lock_guard guard(api_mutex());
  return g_table ? f(*g_table) : int(DLB_ERR_NOINIT);
}

// value(pid) for each live process of the table, at most max_len.
template <class T, class F>
int per_process(T* out, int* nelems, int max_len, F&& value) {
  return with_table([&](lending::CpuTable& t) {
    int n = 0;
    for (const auto& p : t.registry().processes())
      if (p.alive && n < max_len) out[n++] = T(value(t, p.pid));
    if (nelems) *nelems = n;
    return int(DLB_SUCCESS);
  });
}

int node_usage(double* usage, bool average) {
  return with_table([&](lending::CpuTable& t) {
    double sum = 0;
    for (const auto& p : t.registry().processes())
      if (p.alive) sum += std::max(0.0, usage_of(t, p.pid, average));
    *usage = sum;
    return int(DLB_SUCCESS);
  });
}

}  // namespace
}  // namespace joule::dlb

using namespace joule::dlb;
using joule::lending::CpuTable;

extern "C" {

int DLB_Stats_Init(void) {
  std::lock_guard guard(api_mutex());
  if (g_table) return DLB_ERR_INIT;
  try {
    g_table = CpuTable::attach_existing(joule::lending::configured_table_name());
  } catch (const std::exception& e) {
    joule::core::log_error(std::string("DLB_Stats_Init: ") + e.what());
  }
  return g_table ? DLB_SUCCESS : DLB_ERR_NOSHMEM;
}

int DLB_Stats_Finalize(void) {
  return with_table([](CpuTable&) {
    g_table.reset();
    g_last.clear();
    return int(DLB_SUCCESS);
  });
}

int DLB_Stats_GetNumCpus(int* ncpus) {
  return with_table([&](CpuTable& t) { return *ncpus = t.ncpus(), int(DLB_SUCCESS); });
}

int DLB_Stats_GetPidList(int* pidlist, int* nelems, int max_len) {
  return per_process(pidlist, nelems, max_len, [](CpuTable&, pid_t p) { return p; });
}

int DLB_Stats_GetCpuUsage(int pid, double* usage) {
  return with_table([&](CpuTable& t) { return *usage = usage_of(t, pid, false), DLB_SUCCESS; });
}

int DLB_Stats_GetCpuAvgUsage(int pid, double* usage) {
  return with_table([&](CpuTable& t) { return *usage = usage_of(t, pid, true), DLB_SUCCESS; });
}

int DLB_Stats_GetCpuUsageList(double* list, int* nelems, int max_len) {
  return per_process(list, nelems, max_len,
                     [](CpuTable& t, pid_t p) { return usage_of(t, p, false); });
}

int DLB_Stats_GetCpuAvgUsageList(double* list, int* nelems, int max_len) {
  return per_process(list, nelems, max_len,
                     [](CpuTable& t, pid_t p) { return usage_of(t, p, true); });
}

int DLB_Stats_GetNodeUsage(double* usage) { return node_usage(usage, false); }
int DLB_Stats_GetNodeAvgUsage(double* usage) { return node_usage(usage, true); }

int DLB_Stats_GetActiveCpus(int pid, int* ncpus) {
  return with_table([&](CpuTable& t) { return *ncpus = active_cpus(t, pid), DLB_SUCCESS; });
}

int DLB_Stats_GetActiveCpusList(int* list, int* nelems, int max_len) {
  return per_process(list, nelems, max_len, active_cpus);
}

// Not kept by joule (docs/dlb-api.md): never a made-up value.
int DLB_Stats_GetLoadAvg(int, double*) { return DLB_ERR_NOCOMP; }
int DLB_Stats_GetCpuStateIdle(int, float*) { return DLB_ERR_NOCOMP; }
int DLB_Stats_GetCpuStateOwned(int, float*) { return DLB_ERR_NOCOMP; }
int DLB_Stats_GetCpuStateGuested(int, float*) { return DLB_ERR_NOCOMP; }

}  // extern "C"
