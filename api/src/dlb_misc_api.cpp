// DLB-compatible entry points that are not LeWI verbs: the version, DLB's
// option variables (answered from joule's configuration), the string form of
// DROM (registration before start: dlb_preinit_api.cpp).
#include <sched.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <mutex>
#include <string>
#include <string_view>

#include "config.hpp"
#include "dlb_internal.hpp"
#include "joule/dlb/dlb_drom.h"
#include "lending_settings.hpp"
#include "text.hpp"

namespace joule::dlb {
namespace {

lending::LendingSettings settings() {
  try {
    return core::Config::load({}).get<lending::LendingSettings>();
  } catch (const std::exception&) {
    return {};  // a bad key is reported where the runtime starts
  }
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

struct Variable {
  const char* name;
  const char* meaning;
  std::function<std::string()> value;
};

// DLB's option names (DLB user guide, "DLB_ARGS") that have a joule meaning.
// DROM, TALP and the barrier are always available once DLB_Init succeeded.
const std::vector<Variable>& variables() {
  static const std::vector<Variable> table = {
      {"--lewi", "CPU lending (DLB_Init always lends; JOULE_LENDING for the runtime)",
       [] {
         std::lock_guard guard(api_mutex());
         return std::string(yes_no(initialised() || settings().mode != lending::LewiMode::off));
       }},
      {"--drom", "DROM (node table)", [] { return std::string("yes"); }},
      {"--talp", "monitoring regions (CPU and wall time)", [] { return std::string("yes"); }},
      {"--barrier", "node barrier", [] { return std::string("yes"); }},
      {"--mode", "callbacks run inside DLB calls", [] { return std::string("polling"); }},
      {"--shm-key", "node table (JOULE_LENDING_SHM)",
       [] { return lending::configured_table_name(); }},
      {"--lewi-keep-one-cpu", "JOULE_LENDING_KEEP_CPU",
       [] { return std::string(yes_no(settings().keeps_cpu())); }},
  };
  return table;
}

const Variable* find_variable(const char* name) {
  if (!name) return nullptr;
  std::string_view n(name);
  for (const auto& v : variables())
    if (n == v.name || n == std::string_view(v.name).substr(2)) return &v;
  return nullptr;
}

}  // namespace
}  // namespace joule::dlb

using namespace joule::dlb;

extern "C" {

int DLB_GetVersion(int* major, int* minor, int* patch) {
  // The DLB API release whose names and semantics joule follows.
  if (major) *major = 3;
  if (minor) *minor = 4;
  if (patch) *patch = 0;
  return DLB_SUCCESS;
}

int DLB_GetVariable(const char* variable, char* value) {
  const Variable* v = find_variable(variable);
  if (!v) return DLB_ERR_NOENT;
  if (value) std::strcpy(value, v->value().c_str());
  return DLB_SUCCESS;
}

int DLB_SetVariable(const char* variable, const char* /*value*/) {
  return find_variable(variable) ? DLB_ERR_PERM : DLB_ERR_NOENT;
}

int DLB_PrintVariables(int print_extended) {
  for (const auto& v : variables()) {
    std::cerr << "DLB: " << v.name << " = " << v.value();
    if (print_extended) std::cerr << "  (" << v.meaning << ")";
    std::cerr << "\n";
  }
  return DLB_SUCCESS;
}

int DLB_DROM_SetProcessMaskStr(int pid, const char* mask, dlb_drom_flags_t flags) {
  if (!mask) return DLB_ERR_NOENT;
  std::vector<int> cpus;
  try {
    cpus = joule::core::parse_cpu_list(mask);
  } catch (const std::exception&) {
    return DLB_ERR_NOENT;
  }
  cpu_set_t set;
  to_mask(cpus, &set);
  return DLB_DROM_SetProcessMask(pid, &set, flags);
}

}  // extern "C"
