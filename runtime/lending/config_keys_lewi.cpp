// Keys of CPU lending (LeWI) and DROM. Each row sets a member of Config::lewi;
// docs/lending.md explains them.
#include <unistd.h>

#include <stdexcept>

#include "config.hpp"

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
  return {
      {"JOULE_LEWI", [] { return std::string("off, local, node"); },
       "lend idle CPUs: off; local (among this process's workers); node (between processes)",
       [](Config& c, std::string_view v) {
         if (v != "off" && v != "local" && v != "node") throw std::invalid_argument("unknown mode");
         c.lewi.mode = std::string(v);
       },
       [](const Config& c) { return c.lewi.mode; }},
      {"JOULE_LEWI_POLICY", [] { return std::string("auto, mpi"); },
       "auto: idle workers lend their CPU at once (autonomous workers); mpi: CPUs are lent "
       "only during blocking (MPI) calls and API calls",
       [](Config& c, std::string_view v) {
         if (v != "auto" && v != "mpi") throw std::invalid_argument("unknown policy");
         c.lewi.policy = std::string(v);
       },
       [](const Config& c) { return c.lewi.policy; }},
      {"JOULE_LEWI_KEEP_CPU", bool_values,
       "keep the calling thread's CPU during a blocking MPI call (for MPIs that busy-wait); "
       "0 lends it too",
       [](Config& c, std::string_view v) { c.lewi.keep_cpu = parse_bool(v); },
       [](const Config& c) { return format_bool(c.lewi.keep_cpu); }},
      {"JOULE_LEWI_SHM",
       [] { return std::string("a shared-memory name such as /joule-cpus-test (empty: default)"); },
       "name of the node's CPU table; processes share CPUs only within one name",
       [](Config& c, std::string_view v) { c.lewi.shm = v.empty() ? "" : shm_name(v); },
       [](const Config& c) {
         return c.lewi.shm.empty() ? "/joule-cpus-" + std::to_string(::geteuid()) : c.lewi.shm;
       }},
      {"JOULE_LEWI_DROM_TIMEOUT_MS", [] { return std::string("an integer 0..600000"); },
       "how long a DROM mask change waits for the target process to apply it (0: do not wait)",
       [](Config& c, std::string_view v) { c.lewi.drom_timeout_ms = int(parse_int(v, 0, 600000)); },
       [](const Config& c) { return std::to_string(c.lewi.drom_timeout_ms); }},
      {"JOULE_MPI_YIELD", [] { return std::string("auto, on, off"); },
       "libjoule-mpi makes blocking MPI calls leave a lent CPU to its borrower: auto (when "
       "JOULE_LEWI is not off), on, off (the MPI library waits as configured)",
       [](Config& c, std::string_view v) {
         if (v != "auto" && v != "on" && v != "off") throw std::invalid_argument("unknown mode");
         c.lewi.mpi_yield = std::string(v);
       },
       [](const Config& c) { return c.lewi.mpi_yield; }},
  };
}

}  // namespace joule::lending
