// The OMPT tool keys (OpenMP 5.2 §21.3): whether libjoule-omp looks for a
// tool, where, and where it logs the search. libjoule-omp reads them
// through joule_omp_get_tool_settings (joule/team.h); the search itself is
// api/adapters/omp/ompt_start.cpp.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "joule/team.h"
#include "key_table.hpp"
#include "omp_settings.hpp"
#include "runtime.hpp"

namespace joule::api {

using namespace joule::core;
namespace {

std::string lowered(std::string_view v) {
  std::string s(trim(v));
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// The value must fit the C struct's array (with its terminating zero).
std::string bounded(std::string_view v, std::size_t room) {
  std::string s(trim(v));
  if (s.size() >= room) throw std::invalid_argument("too long");
  return s;
}

}  // namespace

void add_omp_tool_keys(KeyTable<OmpSettings>& t) {
  using S = OmpSettings;
  t.custom(
      "OMP_TOOL", "choice", "enabled, disabled (any case)",
      "disabled: libjoule-omp looks for no OMPT tool (ompt_start_tool) at start",
      [](S& o, std::string_view v) {
        const std::string s = lowered(v);
        if (s != "enabled" && s != "disabled") throw std::invalid_argument("unknown value");
        o.tool = s == "enabled";
      },
      [](const S& o) { return std::string(o.tool ? "enabled" : "disabled"); });
  t.custom(
      "OMP_TOOL_LIBRARIES", "list", "tool libraries (paths or names dlopen finds) separated by ':'",
      "the OMPT tools tried in order when the program itself defines no ompt_start_tool; the "
      "first whose ompt_start_tool returns non-null is used",
      [](S& o, std::string_view v) {
        o.tool_libraries = bounded(v, sizeof(joule_omp_tool_settings_t{}.libraries));
      },
      [](const S& o) { return o.tool_libraries; });
  t.custom(
      "OMP_TOOL_VERBOSE_INIT", "text", "disabled, stdout, stderr or a file name",
      "where the search for an OMPT tool is logged, step by step",
      [](S& o, std::string_view v) {
        const std::string s = bounded(v, sizeof(joule_omp_tool_settings_t{}.verbose_init));
        const std::string l = lowered(s);
        o.tool_verbose_init = l == "disabled"                  ? std::string()
                              : l == "stdout" || l == "stderr" ? l
                                                               : s;
      },
      [](const S& o) { return o.tool_verbose_init; });
}

}  // namespace joule::api

extern "C" int joule_omp_get_tool_settings(joule_omp_tool_settings_t* s) {
  if (!s || s->struct_size < sizeof(joule_omp_tool_settings_t)) return JOULE_ERR_INVALID;
  try {
    using joule::engine::Runtime;
    const joule::core::Config c =
        Runtime::running() ? Runtime::get().config() : joule::core::Config::load({});
    const auto& o = c.get<joule::api::OmpSettings>();
    s->tool = o.tool ? 1 : 0;
    std::snprintf(s->libraries, sizeof s->libraries, "%s", o.tool_libraries.c_str());
    std::snprintf(s->verbose_init, sizeof s->verbose_init, "%s", o.tool_verbose_init.c_str());
    return JOULE_OK;
  } catch (const joule::error& e) {
    return e.code();
  }
}
