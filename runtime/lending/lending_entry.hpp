// What the public lending APIs (joule_* in api/src/lending_api.cpp, DLB_* in
// api/src/dlb_api.cpp) and joule-ctl need from runtime/lending: the active
// session, starting one without the runtime, and a readable table.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "lending_session.hpp"
#include "table_print.hpp"

namespace joule::lending {

// The process's session (from the runtime or from start_standalone), or null.
std::shared_ptr<Session> active_session();

// Joins the node table without starting the runtime. mode: "" = JOULE_LENDING,
// or "local" / "node". owned: the CPUs to own; empty = JOULE_CPUS, else the
// process affinity mask, unless owns_none (a process that only borrows:
// DLB_Init with an empty mask). Each successful call holds a reference until
// stop_standalone. Throws nothing; on failure why says what happened.
enum class StartResult { Ok, Off, BadConfig, TableFailed };
StartResult start_standalone(const std::string& mode, const std::vector<int>& owned,
                             std::string& why, bool owns_none = false);
bool stop_standalone();  // false if there was none

// The CPU table this process would use (JOULE_LENDING_SHM or the default).
std::string configured_table_name();

// The affinity mask of the calling thread's process.
std::vector<int> affinity_cpus();

// DROM from any process: asks pid to own exactly `cpus` and, with a
// timeout, waits until it did. 0: done; 1: timed out (the request stays);
// negative: DromMailbox::Error with why set.
int drom_set_mask(CpuTable& t, pid_t pid, const std::vector<int>& cpus, unsigned timeout_ms,
                  std::string& why);

}  // namespace joule::lending
