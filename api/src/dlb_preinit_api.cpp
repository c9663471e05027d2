// DLB's registration of a process before it starts and its clean-up after
// it ended (DLB_PreInit, DLB_DROM_PreInit, DLB_DROM_PostFinalize), on the
// node CPU table: a launcher registers the child's pid (which exec keeps)
// with the CPUs of a mask; the child's DLB_Init (or the runtime's session)
// takes that registration over (ProcessRegistry::register_process) and, given no
// mask, its CPUs; PostFinalize frees what a child that never finalised
// left behind.
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "dlb_internal.hpp"
#include "joule/dlb/dlb_drom.h"
#include "os_support.hpp"

namespace joule::dlb {

std::vector<int> preregistered_cpus(pid_t pid) {
  std::vector<int> out;
  try {
    auto t = lending::CpuTable::attach_existing(lending::configured_table_name());
    for (int c = 0; t && c < t->ncpus(); ++c)
      if (t->load(c).owner == pid) out.push_back(c);
  } catch (const std::exception&) {
  }
  return out;
}

namespace {

// Registers pid owning cpus; DLB's code. Caller holds api_mutex.
int preregister(pid_t pid, const std::vector<int>& cpus) {
  auto t = lending::CpuTable::open_shared(lending::configured_table_name());
  if (t->registry().find_slot(pid) >= 0) return DLB_ERR_INIT;  // registered already (initialised)
  const int slot = t->registry().register_process(pid, 2);
  for (int c : cpus)
    if (c >= t->ncpus() ||
        t->apply(c, lending::CpuOp::Own, pid).outcome == lending::Outcome::Illegal) {
      joule::core::log_error("DLB_DROM_PreInit: CPU " + std::to_string(c) +
                             " is not free in the node CPU table");
      t->registry().unregister_process(slot);  // gives back the CPUs taken so far
      return DLB_ERR_PERM;
    }
  return DLB_SUCCESS;
}

}  // namespace
}  // namespace joule::dlb

using namespace joule::dlb;

extern "C" {

// joule needs no variable in the child's environment (it finds its
// registration by pid): next_environ is left as it is. Flags change nothing
// (a CPU owned by another live participant is refused, never stolen).
int DLB_DROM_PreInit(int pid, const_dlb_cpu_set_t mask, dlb_drom_flags_t /*flags*/,
                     char*** /*next_environ*/) {
  const std::vector<int> cpus = from_mask(mask);
  if (cpus.empty()) return DLB_ERR_NOENT;
  if (pid <= 0 || !joule::lending::pid_exists(pid)) return DLB_ERR_NOPROC;
  std::lock_guard guard(api_mutex());
  try {
    return preregister(pid, cpus);
  } catch (const std::exception& e) {
    joule::core::log_error(std::string("DLB_DROM_PreInit: ") + e.what());
    return DLB_ERR_NOSHMEM;
  }
}

int DLB_PreInit(const_dlb_cpu_set_t mask, char*** next_environ) {
  return DLB_DROM_PreInit(int(::getpid()), mask, DLB_DROM_FLAGS_NONE, next_environ);
}

// After the child ended: its registration and CPUs, if its DLB_Finalize
// (or its runtime's exit) did not free them; DLB_NOUPDT when it did.
int DLB_DROM_PostFinalize(int pid, dlb_drom_flags_t /*flags*/) {
  std::lock_guard guard(api_mutex());
  try {
    auto t = joule::lending::CpuTable::attach_existing(joule::lending::configured_table_name());
    if (!t) return DLB_ERR_NOSHMEM;
    const int slot = t->registry().find_slot(pid);
    if (slot < 0) return DLB_NOUPDT;
    t->registry().unregister_process(slot);
    return DLB_SUCCESS;
  } catch (const std::exception& e) {
    joule::core::log_error(std::string("DLB_DROM_PostFinalize: ") + e.what());
    return DLB_ERR_NOSHMEM;
  }
}

// Nothing is ever stolen (DLB_DROM_PreInit above refuses an owned CPU,
// whatever its flags), so no process has CPUs to take back.
int DLB_DROM_RecoverStolenCpus(int pid) {
  std::lock_guard guard(api_mutex());
  try {
    auto t = joule::lending::CpuTable::attach_existing(joule::lending::configured_table_name());
    if (!t) return DLB_ERR_NOSHMEM;
    return t->registry().find_slot(pid_t(pid)) < 0 ? DLB_ERR_NOPROC : DLB_NOUPDT;
  } catch (const std::exception& e) {
    joule::core::log_error(std::string("DLB_DROM_RecoverStolenCpus: ") + e.what());
    return DLB_ERR_NOSHMEM;
  }
}

}  // extern "C"
