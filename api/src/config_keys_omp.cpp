// The standard OMP_* variables, as keys of joule's one configuration table:
// libjoule-omp (api/adapters/omp) asks for them through joule_omp_settings()
// instead of reading the environment. docs/openmp.md explains them.
#include <cctype>
#include <stdexcept>
#include <string>

#include "config.hpp"

namespace joule::api {

using namespace joule::core;
namespace {

std::string lower(std::string_view v) {
  std::string s(trim(v));
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "4" or a nesting list "4,2": the first level (joule runs inner levels serialised).
int first_level_threads(std::string_view v) {
  const auto comma = v.find(',');
  return int(parse_int(comma == std::string_view::npos ? v : v.substr(0, comma), 1, 4096));
}

// [modifier:]kind[,chunk] with modifier monotonic or nonmonotonic.
void set_schedule(Config& c, std::string_view raw) {
  std::string v = lower(raw);
  bool monotonic = false;
  if (auto colon = v.find(':'); colon != std::string::npos) {
    const std::string mod = v.substr(0, colon);
    if (mod != "monotonic" && mod != "nonmonotonic") throw std::invalid_argument("bad modifier");
    monotonic = mod == "monotonic";
    v = v.substr(colon + 1);
  }
  int chunk = 0;
  if (auto comma = v.find(','); comma != std::string::npos) {
    chunk = int(parse_int(std::string_view(v).substr(comma + 1), 1, 1 << 30));
    v = v.substr(0, comma);
  }
  if (v != "static" && v != "dynamic" && v != "guided" && v != "auto")
    throw std::invalid_argument("unknown schedule kind");
  c.omp.schedule = v;
  c.omp.schedule_chunk = chunk;
  c.omp.schedule_monotonic = monotonic;
}

std::string get_schedule(const Config& c) {
  std::string s = c.omp.schedule_monotonic ? "monotonic:" + c.omp.schedule : c.omp.schedule;
  return c.omp.schedule_chunk ? s + "," + std::to_string(c.omp.schedule_chunk) : s;
}

// A size with an optional B, K, M or G suffix (K when none), as OpenMP says.
std::uint64_t parse_stacksize(std::string_view raw) {
  std::string v = lower(raw);
  std::uint64_t unit = 1024;
  if (!v.empty() && std::isalpha(static_cast<unsigned char>(v.back()))) {
    const char s = v.back();
    unit = s == 'b' ? 1 : s == 'k' ? 1024 : s == 'm' ? 1024 * 1024 : s == 'g' ? 1ull << 30 : 0;
    if (!unit) throw std::invalid_argument("bad suffix");
    v.pop_back();
  }
  return std::uint64_t(parse_int(v, 1, std::int64_t(1) << 40)) * unit;
}

void set_proc_bind(Config& c, std::string_view raw) {
  std::string v = lower(raw);
  v = v.substr(0, v.find(','));
  if (v != "false" && v != "true" && v != "primary" && v != "master" && v != "close" &&
      v != "spread")
    throw std::invalid_argument("unknown binding");
  c.omp.proc_bind = v == "master" ? "primary" : v;
}

}  // namespace

std::vector<ConfigKey> omp_config_keys() {
  return {
      {"OMP_NUM_THREADS", [] { return std::string("an integer 1..4096, or a list such as 4,2"); },
       "team size of parallel regions (pins it: no malleable teams unless OMP_DYNAMIC=true)",
       [](Config& c, std::string_view v) { c.omp.num_threads = first_level_threads(v); },
       [](const Config& c) { return std::to_string(c.omp.num_threads); }},
      {"OMP_SCHEDULE",
       [] { return std::string("[monotonic:|nonmonotonic:]static|dynamic|guided|auto[,chunk]"); },
       "schedule of loops with schedule(runtime)", set_schedule, get_schedule},
      {"OMP_DYNAMIC", bool_values,
       "size teams from the CPUs owned and borrowed at each region (default unless "
       "OMP_NUM_THREADS is set)",
       [](Config& c, std::string_view v) { c.omp.dynamic = parse_bool(v) ? 1 : 0; },
       [](const Config& c) {
         return c.omp.dynamic < 0 ? std::string("auto") : format_bool(c.omp.dynamic != 0);
       }},
      {"OMP_WAIT_POLICY", [] { return std::string("active, passive"); },
       "active: threads waiting in barriers spin longer before they sleep",
       [](Config& c, std::string_view v) {
         const std::string s = lower(v);
         if (s != "active" && s != "passive") throw std::invalid_argument("unknown policy");
         c.omp.wait_policy = s;
       },
       [](const Config& c) { return c.omp.wait_policy; }},
      {"OMP_MAX_ACTIVE_LEVELS", [] { return std::string("an integer 0..255"); },
       "nested active parallel levels allowed (joule runs levels beyond the first serialised)",
       [](Config& c, std::string_view v) { c.omp.max_active_levels = int(parse_int(v, 0, 255)); },
       [](const Config& c) { return std::to_string(c.omp.max_active_levels); }},
      {"OMP_PROC_BIND",
       [] { return std::string("false, true, primary, master, close, spread (or a list)"); },
       "thread affinity policy (joule's workers are bound by JOULE_BIND; recorded for queries)",
       set_proc_bind, [](const Config& c) { return c.omp.proc_bind; }},
      {"OMP_STACKSIZE", [] { return std::string("a size such as 4096, 512K, 16M or 1G"); },
       "stack size of team threads (recorded; joule's workers keep their own stacks)",
       [](Config& c, std::string_view v) { c.omp.stacksize = parse_stacksize(v); },
       [](const Config& c) { return std::to_string(c.omp.stacksize); }},
  };
}

}  // namespace joule::api
