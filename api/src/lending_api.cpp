// The C ABI of CPU lending: joule_lend ... joule_poll_drom. Converts
// arguments and maps table outcomes to status codes; the logic lives in
// runtime/lending (Session). None of these starts the runtime.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "config.hpp"
#include "joule/joule.h"
#include "lending_entry.hpp"
#include "lending_settings.hpp"

namespace {

using joule::lending::Outcome;
using joule::lending::Session;

// The reason of the last failure on this thread (joule_last_error() lives in
// c_api.cpp and cannot see it yet; kept for when it can).
thread_local std::string g_lending_error;

int fail(int code, std::string msg) {
  g_lending_error = std::move(msg);
  return code;
}

int not_active() {
  return fail(JOULE_ERR_STATE,
              "joule: CPU lending is not active in this process (JOULE_LENDING=off, or call "
              "joule_lending_start)");
}

// Runs f(session) when lending is active; exceptions become status codes.
template <class F>
int with_session(F&& f) noexcept {
  try {
    auto s = joule::lending::active_session();
    if (!s) return not_active();
    return f(*s);
  } catch (const std::exception& e) {
    return fail(JOULE_ERR_STATE, e.what());
  }
}

int bad_cpu(Session& s, int cpu) {
  if (cpu >= 0 && cpu < s.table().ncpus()) return JOULE_OK;
  return fail(JOULE_ERR_INVALID, "joule: CPU " + std::to_string(cpu) + " is not in the CPU table");
}

// Done, Pending and NoChange are success; Illegal means "not yours".
int from_outcome(Outcome o, const char* what, int cpu) {
  if (o != Outcome::Illegal) return JOULE_OK;
  return fail(JOULE_ERR_STATE,
              std::string("joule: cannot ") + what + " CPU " + std::to_string(cpu) + " now");
}

template <class Verb>
int cpu_verb(int cpu, const char* what, Verb verb) {
  return with_session([&](Session& s) -> int {
    if (int rc = bad_cpu(s, cpu)) return rc;
    return from_outcome(verb(s, cpu), what, cpu);
  });
}

void copy_out(const std::vector<int>& v, int* cpus, size_t cap) {
  for (size_t i = 0; cpus && i < v.size() && i < cap; ++i) cpus[i] = v[i];
}

}  // namespace

extern "C" {

int joule_lending_start(int mode) {
  const char* m = mode == JOULE_LENDING_LOCAL ? "local" : mode == JOULE_LENDING_NODE ? "node" : "";
  if (mode < JOULE_LENDING_FROM_CONFIG || mode > JOULE_LENDING_NODE)
    return fail(JOULE_ERR_INVALID, "joule_lending_start: unknown mode");
  std::string why;
  using R = joule::lending::StartResult;
  const R r = joule::lending::start_standalone(m, {}, why);
  if (r == R::Ok) return JOULE_OK;
  return fail(r == R::Off ? JOULE_ERR_STATE : JOULE_ERR_CONFIG, why);
}

int joule_lending_stop(void) { return joule::lending::stop_standalone() ? JOULE_OK : not_active(); }

int joule_lending_active(void) { return joule::lending::active_session() ? 1 : 0; }

int joule_lend(void) {
  return with_session([](Session& s) -> int { return s.loans().lend_all(true), JOULE_OK; });
}
int joule_reclaim(void) {
  return with_session([](Session& s) -> int { return s.loans().reclaim_all(nullptr), JOULE_OK; });
}
int joule_borrow(void) {
  return with_session([](Session& s) -> int {
    return s.loans().borrow_up_to(s.table().ncpus(), nullptr), JOULE_OK;
  });
}
int joule_return(void) {
  return with_session([](Session& s) -> int { return s.loans().return_all(), JOULE_OK; });
}

int joule_lend_cpu(int cpu) {
  return cpu_verb(cpu, "lend", [](Session& s, int c) { return s.loans().lend_cpu(c); });
}
int joule_reclaim_cpu(int cpu) {
  return cpu_verb(cpu, "reclaim", [](Session& s, int c) { return s.loans().reclaim_cpu(c); });
}
int joule_borrow_cpu(int cpu) {
  return cpu_verb(cpu, "borrow", [](Session& s, int c) { return s.loans().borrow_cpu(c); });
}
int joule_acquire_cpu(int cpu) {
  return cpu_verb(cpu, "acquire", [](Session& s, int c) { return s.loans().acquire_cpu(c); });
}
int joule_return_cpu(int cpu) {
  return cpu_verb(cpu, "return", [](Session& s, int c) { return s.loans().return_cpu(c); });
}

int joule_cpus_available_now(int* n) {
  if (!n) return fail(JOULE_ERR_INVALID, "joule_cpus_available_now: n is NULL");
  return with_session([&](Session& s) -> int { return *n = s.loans().available_now(), JOULE_OK; });
}

int joule_borrow_up_to(int n, int* cpus, int* got) {
  if (!got || n < 0) return fail(JOULE_ERR_INVALID, "joule_borrow_up_to: got is NULL or n < 0");
  return with_session([&](Session& s) -> int {
    std::vector<int> list;
    int taken = 0;
    for (int c : s.loans().owned_cpus()) {  // own lent CPUs first: those usable at once count
      if (taken >= n) break;
      const auto w = s.table().load(c);
      if (w.state != joule::lending::CpuState::Idle) continue;
      if (s.loans().reclaim_cpu(c) == Outcome::Done) list.push_back(c), ++taken;
    }
    if (taken < n) s.loans().borrow_up_to(n - taken, &list);
    copy_out(list, cpus, size_t(n));
    *got = int(list.size());
    return JOULE_OK;
  });
}

int joule_give_back(int n, int* cpus, int* given) {
  if (!given || n < 0) return fail(JOULE_ERR_INVALID, "joule_give_back: given is NULL or n < 0");
  return with_session([&](Session& s) -> int {
    std::vector<int> list;
    s.loans().give_back(n, &list);
    copy_out(list, cpus, size_t(n));
    *given = int(list.size());
    return JOULE_OK;
  });
}

int joule_get_cpu_info(int cpu, joule_cpu_info_t* info) {
  if (!info) return fail(JOULE_ERR_INVALID, "joule_get_cpu_info: info is NULL");
  return with_session([&](Session& s) -> int {
    if (int rc = bad_cpu(s, cpu)) return rc;
    const auto w = s.table().load(cpu);
    info->state = int(w.state);
    info->owner_pid = int(w.owner);
    info->guest_pid = int(w.guest);
    info->usable = s.usable(cpu) ? 1 : 0;
    return JOULE_OK;
  });
}

int joule_blocking_enter(void) {
  return with_session([](Session& s) -> int {
    s.enter_blocking(s.options().keep_cpu ? 1 : 0);
    return JOULE_OK;
  });
}

int joule_blocking_leave(void) {
  return with_session([](Session& s) -> int { return s.leave_blocking(), JOULE_OK; });
}

int joule_mpi_should_yield(int* yield) {
  if (!yield) return fail(JOULE_ERR_INVALID, "joule_mpi_should_yield: yield is NULL");
  try {
    const auto c = joule::core::Config::load({});
    *yield = c.get<joule::lending::LendingSettings>().yields();
    return JOULE_OK;
  } catch (const std::exception& e) {
    return fail(JOULE_ERR_CONFIG, e.what());
  }
}

int joule_mpi_lend_calls(int* which) {
  if (!which) return fail(JOULE_ERR_INVALID, "joule_mpi_lend_calls: which is NULL");
  try {
    using joule::lending::MpiCalls;
    const auto c = joule::core::Config::load({});
    switch (c.get<joule::lending::LendingSettings>().dlb_args.lewi_mpi_calls) {
      case MpiCalls::none:
        *which = JOULE_MPI_LEND_NONE;
        break;
      case MpiCalls::all:
        *which = JOULE_MPI_LEND_ALL;
        break;
      case MpiCalls::barrier:
        *which = JOULE_MPI_LEND_BARRIER;
        break;
      case MpiCalls::collectives:
        *which = JOULE_MPI_LEND_COLLECTIVES;
        break;
    }
    return JOULE_OK;
  } catch (const std::exception& e) {
    return fail(JOULE_ERR_CONFIG, e.what());
  }
}

int joule_lending_hint(int hint) {
  using joule::lending::Hint;
  if (hint < JOULE_LENDING_ENABLE || hint > JOULE_LENDING_PARALLEL)
    return fail(JOULE_ERR_INVALID, "joule_lending_hint: unknown hint");
  return with_session([&](Session& s) -> int {
    s.set_hint(hint == JOULE_LENDING_DISABLE  ? Hint::Disabled
               : hint == JOULE_LENDING_SINGLE ? Hint::Single
                                              : Hint::Enabled);
    return JOULE_OK;
  });
}

int joule_set_max_parallelism(int n) {
  if (n < 0) return fail(JOULE_ERR_INVALID, "joule_set_max_parallelism: n < 0");
  return with_session(
      [&](Session& s) -> int { return s.hints().set_max_parallelism(n), JOULE_OK; });
}

int joule_set_process_mask(int pid, const int* cpus, size_t n) {
  if (n && !cpus) return fail(JOULE_ERR_INVALID, "joule_set_process_mask: cpus is NULL");
  if (n > size_t(PTRDIFF_MAX) / sizeof(int))  // no such array: cpus + n would wrap
    return fail(JOULE_ERR_INVALID, "joule_set_process_mask: n is larger than any array of int");
  return with_session([&](Session& s) -> int {
    std::vector<int> list(cpus, cpus + n);
    std::string why;
    const int rc = s.drom().set_process_mask(pid ? pid_t(pid) : s.pid(), list,
                                             s.options().drom_timeout_ms, why);
    if (rc == 0) return JOULE_OK;
    const bool bad =
        rc == joule::lending::DromMailbox::kBadCpu || rc == joule::lending::DromMailbox::kUnackable;
    return fail(bad ? JOULE_ERR_INVALID : JOULE_ERR_STATE, "joule: " + why);
  });
}

int joule_get_process_mask(int pid, int* cpus, size_t cap, size_t* n) {
  if (!n) return fail(JOULE_ERR_INVALID, "joule_get_process_mask: n is NULL");
  return with_session([&](Session& s) -> int {
    const pid_t p = pid ? pid_t(pid) : s.pid();
    if (p != s.pid() && s.table().registry().find_slot(p) < 0)
      return fail(JOULE_ERR_STATE, "joule: process " + std::to_string(p) + " is not in the table");
    const std::vector<int> owned = s.table().owned_by(p);
    copy_out(owned, cpus, cap);
    *n = owned.size();
    return JOULE_OK;
  });
}

int joule_poll_drom(int* changed, int* cpus, size_t cap, size_t* n) {
  if (!changed || !n) return fail(JOULE_ERR_INVALID, "joule_poll_drom: changed or n is NULL");
  return with_session([&](Session& s) -> int {
    std::vector<int> mask;
    *changed = s.drom().poll_mask(mask) ? 1 : 0;
    if (!*changed) mask = s.loans().owned_cpus();
    copy_out(mask, cpus, cap);
    *n = mask.size();
    return JOULE_OK;
  });
}

}  // extern "C"
