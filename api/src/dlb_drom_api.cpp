// DLB-compatible DROM entry points (joule/dlb.h): this process's side
// (PollDROM) and a resource manager's side (DLB_DROM_*), plus DLB_Strerror
// and DLB_PrintShmem.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
#include "dlb_internal.hpp"
#include "joule/dlb/dlb_sp.h"
#include "lending_settings.hpp"
#include "log.hpp"

namespace {

using joule::lending::Session;

// The table of DLB_DROM_Attach, for a manager that is not itself in one.
std::unique_ptr<joule::lending::CpuTable> g_drom_table;

joule::lending::CpuTable* drom_table() {
  if (auto s = joule::lending::active_session()) return &s->table();
  return g_drom_table.get();
}

unsigned drom_timeout() {
  try {
    return unsigned(
        joule::core::Config::load({}).get<joule::lending::LendingSettings>().drom_timeout_ms);
  } catch (const std::exception&) {
    return 5000;
  }
}

// This participant's side of DROM: its new mask, if a manager changed it.
int poll_drom(dlb_handler_t h, int* ncpus, dlb_cpu_set_t mask) {
  return joule::dlb::call_on(
      h,
      [&](Session& s) -> int {
        std::vector<int> cpus;
        if (!s.drom().poll_mask(cpus)) return DLB_NOUPDT;
        if (ncpus) *ncpus = int(cpus.size());
        joule::dlb::to_mask(cpus, mask);
        return DLB_SUCCESS;
      },
      true);
}

int poll_drom_update(dlb_handler_t h) {
  return joule::dlb::call_on(
      h,
      [](Session& s) -> int {
        std::vector<int> cpus;
        if (!s.drom().poll_mask(cpus)) return DLB_NOUPDT;
        return joule::dlb::call_mask_callback(cpus) ? DLB_SUCCESS : DLB_ERR_NOCBK;
      },
      true);
}

}  // namespace

using namespace joule::dlb;

extern "C" {

int DLB_PollDROM(int* ncpus, dlb_cpu_set_t mask) { return poll_drom(nullptr, ncpus, mask); }
int DLB_PollDROM_Update(void) { return poll_drom_update(nullptr); }
int DLB_PollDROM_sp(dlb_handler_t h, int* ncpus, dlb_cpu_set_t mask) {
  return sp(h, poll_drom, ncpus, mask);
}
int DLB_PollDROM_Update_sp(dlb_handler_t h) { return sp(h, poll_drom_update); }

int DLB_DROM_Attach(void) {
  std::lock_guard guard(api_mutex());
  if (g_drom_table) return DLB_ERR_INIT;
  try {
    g_drom_table = joule::lending::CpuTable::open_shared(joule::lending::configured_table_name());
  } catch (const std::exception& e) {
    joule::core::log_error(std::string("DLB_DROM_Attach: ") + e.what());
    return DLB_ERR_NOSHMEM;
  }
  return DLB_SUCCESS;
}

int DLB_DROM_Detach(void) {
  std::lock_guard guard(api_mutex());
  if (!g_drom_table) return DLB_ERR_NOINIT;
  g_drom_table.reset();
  return DLB_SUCCESS;
}

int DLB_DROM_GetNumCpus(int* ncpus) {
  std::lock_guard guard(api_mutex());
  auto* t = drom_table();
  if (!t) return DLB_ERR_NOSHMEM;
  if (ncpus) *ncpus = t->ncpus();
  return DLB_SUCCESS;
}

int DLB_DROM_GetPidList(int* pidlist, int* nelems, int max_len) {
  std::lock_guard guard(api_mutex());
  auto* t = drom_table();
  if (!t) return DLB_ERR_NOSHMEM;
  int n = 0;
  for (const auto& p : t->registry().processes())
    if (p.alive && n < max_len) pidlist[n++] = int(p.pid);
  if (nelems) *nelems = n;
  return DLB_SUCCESS;
}

int DLB_DROM_GetProcessMask(int pid, dlb_cpu_set_t mask, dlb_drom_flags_t /*flags*/) {
  std::lock_guard guard(api_mutex());
  auto* t = drom_table();
  if (!t) return DLB_ERR_NOSHMEM;
  const pid_t p = pid ? pid_t(pid) : ::getpid();
  if (t->registry().find_slot(p) < 0) return DLB_ERR_NOPROC;
  to_mask(t->owned_by(p), mask);
  return DLB_SUCCESS;
}

int DLB_DROM_SetProcessMask(int pid, const_dlb_cpu_set_t mask, dlb_drom_flags_t flags) {
  joule::lending::CpuTable* t;
  {
    std::lock_guard guard(api_mutex());
    t = drom_table();
  }
  if (!t) return DLB_ERR_NOSHMEM;
  std::string why;
  const unsigned timeout = (flags & DLB_SYNC_QUERY) ? drom_timeout() : 0;
  const int rc = joule::lending::drom_set_mask(*t, pid ? pid_t(pid) : ::getpid(), from_mask(mask),
                                               timeout, why);
  if (rc == 0) return DLB_SUCCESS;
  if (rc == 1) return DLB_ERR_TIMEOUT;
  if (rc == joule::lending::DromMailbox::kNoProc) return DLB_ERR_NOPROC;
  return DLB_ERR_PERM;
}

int DLB_GetProcessMask(int pid, dlb_cpu_set_t mask) {
  return DLB_DROM_GetProcessMask(pid, mask, DLB_DROM_FLAGS_NONE);
}

int DLB_SetProcessMask(int pid, const_dlb_cpu_set_t mask) {
  return DLB_DROM_SetProcessMask(pid, mask, DLB_SYNC_QUERY);
}

const char* DLB_Strerror(int errnum) {
  switch (errnum) {
    case DLB_NOUPDT:
      return "The requested operation does not need any action";
    case DLB_NOTED:
      return "The operation cannot be performed now, but it has been noted";
    case DLB_SUCCESS:
      return "Success";
    case DLB_ERR_NOINIT:
      return "DLB has not been initialized";
    case DLB_ERR_INIT:
      return "DLB is already initialized";
    case DLB_ERR_DISBLD:
      return "DLB is disabled";
    case DLB_ERR_NOSHMEM:
      return "The CPU table cannot be opened";
    case DLB_ERR_NOPROC:
      return "The process is not in the CPU table";
    case DLB_ERR_PDIRTY:
      return "The process has another mask change in progress";
    case DLB_ERR_PERM:
      return "The resource cannot be acquired: not owned or not available";
    case DLB_ERR_TIMEOUT:
      return "The operation timed out";
    case DLB_ERR_NOCBK:
      return "The callback is not defined";
    case DLB_ERR_NOENT:
      return "The entry does not exist";
    case DLB_ERR_NOCOMP:
      return "The operation is not compatible with the configuration";
    case DLB_ERR_REQST:
      return "Too many requests";
    case DLB_ERR_NOMEM:
      return "The CPU table has no room for another process";
    case DLB_ERR_NOPOL:
      return "No policy";
    case DLB_ERR_NOTALP:
      return "Monitoring regions need DLB_Init first";
    case DLB_ERR_NOLEWI:
      return "LeWI is not enabled (DLB_ARGS --lewi=no)";
    case DLB_ERR_NOMNGO:
      return "MNGO is not initialized: joule has no application manager (docs/dlb-api.md)";
    default:
      return "Unknown error";
  }
}

int DLB_PrintShmem(int /*num_columns*/, int /*print_flags*/) {
  std::lock_guard guard(api_mutex());
  auto* t = drom_table();
  if (!t) return DLB_ERR_NOSHMEM;
  joule::lending::print_table(*t, std::cerr);
  return DLB_SUCCESS;
}

}  // extern "C"
