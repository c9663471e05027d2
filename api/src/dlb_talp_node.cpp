// TALP at node level (DLB API reference, dlb_talp.h: DLB_TALP_GetNodeTimes,
// DLB_TALP_QueryPOPNodeMetrics, DLB_TALP_CollectPOPNodeMetrics). Each DLB
// process publishes its regions' useful and MPI times in a segment beside
// the node's CPU table (dlb_shm_segment.hpp), rewritten whenever a region's
// totals change (start, stop, update, collect); readers sum what the live
// processes published. A process takes its entries with it at DLB_Finalize,
// and entries of processes that died are dropped by the next reader.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "dlb_internal.hpp"
#include "dlb_shm_segment.hpp"
#include "joule/dlb/dlb_talp.h"

namespace joule::dlb {
namespace {

struct Entry {
  pid_t pid;
  char name[DLB_MONITOR_NAME_MAX];
  std::int64_t useful, mpi;
};

struct TalpShared {
  static constexpr int kMax = 1024;  // (process, region) pairs on a node
  SegmentHead head;
  std::int32_t count;
  Entry entries[kMax];
};

TalpShared* g_mine = nullptr;  // this process's mapping; api_mutex held
bool g_full_logged = false;

std::string shm_name() { return segment_name("talp", lending::configured_table_name()); }

TalpShared* map_talp(bool create) {
  return reinterpret_cast<TalpShared*>(map_segment(shm_name(), sizeof(TalpShared), create));
}

void unmap_talp(TalpShared*& s) {
  if (s) unmap_segment(&s->head, sizeof(TalpShared));
  s = nullptr;
}

// Removes the entries of pid (and of dead processes); the caller holds the
// segment's lock.
void drop(TalpShared& s, pid_t pid) {
  for (int i = 0; i < s.count;) {
    if (s.entries[i].pid != pid && process_alive(s.entries[i].pid)) {
      ++i;
      continue;
    }
    s.entries[i] = s.entries[--s.count];
  }
}

// This process's mapping, locked; a segment its last user removed while we
// held it is replaced by a fresh one.
TalpShared& lock_mine() {
  for (;;) {
    if (!g_mine) g_mine = map_talp(true);
    lock_segment(g_mine->head);
    if (!g_mine->head.removed) return *g_mine;
    unlock_segment(g_mine->head);
    unmap_talp(g_mine);
  }
}

Entry* find(TalpShared& s, pid_t pid, const char* name) {
  for (int i = 0; i < s.count; ++i)
    if (s.entries[i].pid == pid && std::strcmp(s.entries[i].name, name) == 0) return &s.entries[i];
  if (s.count == TalpShared::kMax) return nullptr;
  Entry& e = s.entries[s.count++];
  e = Entry{};
  e.pid = pid;
  std::snprintf(e.name, sizeof e.name, "%s", name);
  return &e;
}

// The entries published for `name` (NULL: the global region); false when
// no process of the table runs TALP.
bool read_entries(const char* name, std::vector<Entry>& out) {
  TalpShared* s = map_talp(false);
  if (!s) return false;
  char key[DLB_MONITOR_NAME_MAX];
  std::snprintf(key, sizeof key, "%s", name ? name : DLB_GLOBAL_REGION_NAME);
  lock_segment(s->head);
  drop(*s, 0);
  for (int i = 0; i < s->count; ++i)
    if (std::strcmp(s->entries[i].name, key) == 0) out.push_back(s->entries[i]);
  const bool removed = s->head.removed;
  unlock_segment(s->head);
  unmap_talp(s);
  return !removed || !out.empty();
}

// POP's node efficiencies from the processes' times, with the region's
// elapsed time taken as the longest useful + MPI time of a process:
// load balance = average useful / max useful, communication efficiency =
// max useful / elapsed, parallel efficiency = their product. 0/0: NAN.
void metrics_of(const char* name, const std::vector<Entry>& es, dlb_node_metrics_t& m) {
  std::memset(&m, 0, sizeof m);
  std::snprintf(m.name, sizeof m.name, "%s", name ? name : DLB_GLOBAL_REGION_NAME);
  m.processes_per_node = int(es.size());
  std::int64_t elapsed = 0;
  for (const Entry& e : es) {
    m.total_useful_time += e.useful;
    m.total_mpi_time += e.mpi;
    m.max_useful_time = std::max(m.max_useful_time, e.useful);
    m.max_mpi_time = std::max(m.max_mpi_time, e.mpi);
    elapsed = std::max(elapsed, e.useful + e.mpi);
  }
  const float na = std::nanf("");
  const double n = double(es.size());
  m.load_balance = m.max_useful_time > 0
                       ? float(double(m.total_useful_time) / (n * double(m.max_useful_time)))
                       : na;
  m.communication_efficiency =
      elapsed > 0 ? float(double(m.max_useful_time) / double(elapsed)) : na;
  m.parallel_efficiency = m.communication_efficiency * m.load_balance;
}

}  // namespace

void talp_publish(const std::string& region, std::int64_t useful, std::int64_t mpi) {
  try {
    TalpShared& s = lock_mine();
    Entry* e = find(s, ::getpid(), region.c_str());
    if (e) e->useful = useful, e->mpi = mpi;
    unlock_segment(s.head);
    if (!e && !g_full_logged) {
      g_full_logged = true;
      core::log_error("DLB TALP: the node's table of published regions is full; region '" + region +
                      "' is not published");
    }
  } catch (const std::exception& e) {
    if (!g_full_logged) core::log_error(std::string("DLB TALP: ") + e.what());
    g_full_logged = true;
  }
}

void talp_unpublish() {
  if (!g_mine) return;
  lock_segment(g_mine->head);
  drop(*g_mine, ::getpid());
  if (g_mine->count == 0 && !g_mine->head.removed) {
    g_mine->head.removed = 1;
    ::shm_unlink(shm_name().c_str());
  }
  unlock_segment(g_mine->head);
  unmap_talp(g_mine);
}

// read_entries as DLB's code: DLB_ERR_NOSHMEM when there is no segment.
int entries_of(const char* name, std::vector<Entry>& es) {
  try {
    return read_entries(name, es) ? int(DLB_SUCCESS) : int(DLB_ERR_NOSHMEM);
  } catch (const std::exception& e) {
    core::log_error(std::string("DLB TALP: ") + e.what());
    return DLB_ERR_NOSHMEM;
  }
}

int talp_query_node(const char* name, dlb_node_metrics_t* m) {
  std::vector<Entry> es;
  if (const int rc = entries_of(name, es); rc != DLB_SUCCESS) return rc;
  if (es.empty()) return DLB_ERR_NOENT;
  metrics_of(name, es, *m);
  return DLB_SUCCESS;
}

}  // namespace joule::dlb

using namespace joule::dlb;

extern "C" {

int DLB_TALP_GetNodeTimes(const char* name, dlb_node_times_t* list, int* nelems, int max_len) {
  std::vector<Entry> es;
  if (const int rc = entries_of(name, es); rc != DLB_SUCCESS) return rc;
  const int n = list ? std::min(int(es.size()), std::max(max_len, 0)) : 0;
  for (int i = 0; i < n; ++i) list[i] = dlb_node_times_t{es[i].pid, es[i].mpi, es[i].useful};
  if (nelems) *nelems = n;
  return DLB_SUCCESS;
}

int DLB_TALP_QueryPOPNodeMetrics(const char* name, dlb_node_metrics_t* node_metrics) {
  if (!node_metrics) return DLB_ERR_UNKNOWN;
  return talp_query_node(name, node_metrics);
}

}  // extern "C"
