// Keys of CPU lending (LeWI), DROM and libjoule-mpi's waiting;
// docs/lending.md explains them. Each JOULE_LENDING* key was JOULE_LEWI*
// before the layer took the name lending: the old names stay as aliases.
#include <unistd.h>

#include <stdexcept>

#include "key_table.hpp"
#include "lending_settings.hpp"

namespace joule::lending {

using namespace joule::core;
namespace {

// A POSIX shared-memory name: one leading '/', no other, 2..200 characters.
// A name without the slash gets one.
std::string shm_name(std::string_view v) {
  std::string n = !v.empty() && v[0] == '/' ? std::string(v) : "/" + std::string(v);
  if (n.size() < 2 || n.size() > 200 || n.find('/', 1) != std::string::npos)
    throw std::invalid_argument("bad shared-memory name");
  for (char ch : n)
    if (ch == '\0' || ch == ' ' || ch == '\n')
      throw std::invalid_argument("bad shared-memory name");
  return n;
}

}  // namespace

std::vector<ConfigKey> lewi_config_keys() {
  using S = LendingSettings;
  KeyTable<S> t;
  t.choice("JOULE_LENDING", &S::mode, Choices<LewiMode>(kLewiModes),
           "lend idle CPUs: off; local (among this process's workers); node (between processes)")
      .alias("JOULE_LEWI");
  t.choice("JOULE_LENDING_POLICY", &S::policy, Choices<LewiPolicy>(kLewiPolicies),
           "auto: idle workers lend their CPU at once (autonomous workers); mpi: CPUs are lent "
           "only during blocking (MPI) calls and API calls")
      .alias("JOULE_LEWI_POLICY");
  t.flag("JOULE_LENDING_KEEP_CPU", &S::keep_cpu,
         "keep the calling thread's CPU during a blocking MPI call (for MPIs that busy-wait); "
         "0 lends it too")
      .alias("JOULE_LEWI_KEEP_CPU");
  t.custom(
       "JOULE_LENDING_SHM", "text",
       "a shared-memory name such as /joule-cpus-test (empty: default)",
       "name of the node's CPU table; processes share CPUs only within one name",
       [](S& s, std::string_view v) { s.shm = v.empty() ? "" : shm_name(v); },
       [](const S& s) {
         return s.shm.empty() ? "/joule-cpus-" + std::to_string(::geteuid()) : s.shm;
       })
      .alias("JOULE_LEWI_SHM");
  t.integer("JOULE_LENDING_DROM_TIMEOUT_MS", &S::drom_timeout_ms, 0, 600000,
            "how long a DROM mask change waits for the target process to apply it",
            "milliseconds; 0: do not wait")
      .alias("JOULE_LEWI_DROM_TIMEOUT_MS");
  t.integer("JOULE_LENDING_RECLAIM_TIMEOUT_MS", &S::reclaim_timeout_ms, 0, 600000,
            "how long an owner waits for the borrower of a reclaimed CPU to give it back before "
            "taking it back anyway (a stopped or hung borrower); counted as revoked in joule-ctl "
            "show",
            "milliseconds; 0: wait for the borrower forever")
      .alias("JOULE_LEWI_RECLAIM_TIMEOUT_MS");
  t.choice("JOULE_MPI_YIELD", &S::mpi_yield, Choices<MpiYield>(kMpiYields),
           "libjoule-mpi makes blocking MPI calls leave a lent CPU to its borrower: auto (when "
           "JOULE_LENDING is not off), on, off (the MPI library waits as configured)");
  t.custom(
      "DLB_ARGS", "text", DlbArgs::allowed(),
      "DLB's options (for programs written against DLB: docs/dlb-api.md); options joule does "
      "not give DLB's meaning to are refused by name",
      [](S& s, std::string_view v) {
        DlbArgs a;
        a.parse(v);
        s.dlb_args = a;
        s.dlb_args_text = std::string(v);
      },
      [](const S& s) { return s.dlb_args_text; });
  return t.keys();
}

}  // namespace joule::lending
