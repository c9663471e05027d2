// The standard OMP_* variables, as keys of joule's one configuration table:
// libjoule-omp (api/adapters/omp) asks for them through joule_omp_settings()
// instead of reading the environment. docs/openmp.md explains them.
#include <algorithm>
#include <cctype>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine_settings.hpp"
#include "key_table.hpp"
#include "omp_settings.hpp"

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

// A case-insensitive name of `names`.
template <class E>
E lower_choice(std::string_view raw, Choices<E> names, const char* what) {
  const std::string v = lower(raw);
  for (const auto& [n, e] : names)
    if (v == n) return e;
  throw std::invalid_argument(what);
}

// A key whose value is one of `names`, in any case.
template <class E>
void add_case_choice(KeyTable<OmpSettings>& t, const char* key, E OmpSettings::*m, Choices<E> names,
                     std::string allowed, const char* help, const char* what) {
  t.custom(
      key, "choice", std::move(allowed), help,
      [m, names, what](OmpSettings& o, std::string_view v) { o.*m = lower_choice(v, names, what); },
      [m, names](const OmpSettings& o) { return std::string(choice_name(names, o.*m)); });
}

// [modifier:]kind[,chunk] with modifier monotonic or nonmonotonic.
void set_schedule(OmpSettings& o, std::string_view raw) {
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
  o.schedule = lower_choice(v, Choices<OmpSchedule>(kOmpSchedules), "unknown schedule kind");
  o.schedule_chunk = chunk;
  o.schedule_monotonic = monotonic;
}

// A positive integer up to `hi`, or empty: not set (0).
void add_count(KeyTable<OmpSettings>& t, const char* name, int OmpSettings::*m, int hi,
               const char* help) {
  t.custom(
      name, "integer", "an integer 1.." + std::to_string(hi) + " (empty: not set)", help,
      [m, hi](OmpSettings& o, std::string_view v) {
        o.*m = trim(v).empty() ? 0 : int(parse_int(v, 1, hi));
      },
      [m](const OmpSettings& o) { return o.*m ? std::to_string(o.*m) : std::string(); });
}

// OpenMP 5.1's teams ICVs (nteams-var, teams-thread-limit-var).
void add_omp_teams_keys(KeyTable<OmpSettings>& t) {
  add_count(t, "OMP_NUM_TEAMS", &OmpSettings::num_teams, 1 << 20,
            "teams of a host teams construct without num_teams (not set: one per worker)");
  add_count(t, "OMP_TEAMS_THREAD_LIMIT", &OmpSettings::teams_thread_limit, 4096,
            "threads of each team of a teams construct without thread_limit (not set: the "
            "team's share of the workers)");
}

std::string get_schedule(const OmpSettings& o) {
  const std::string kind = choice_name(Choices<OmpSchedule>(kOmpSchedules), o.schedule);
  const std::string s = o.schedule_monotonic ? "monotonic:" + kind : kind;
  return o.schedule_chunk ? s + "," + std::to_string(o.schedule_chunk) : s;
}

// OMP_STACKSIZE also sizes joule's worker stacks, unless JOULE_STACK_SIZE
// does (whichever order the two keys come in).
std::function<void(Config&, std::string_view)> with_worker_stacks(
    std::function<void(Config&, std::string_view)> set) {
  return [set](Config& c, std::string_view v) {
    set(c, v);
    auto& e = c.get<engine::EngineSettings>();
    const std::uint64_t bytes = c.get<OmpSettings>().stacksize;
    if (e.stack_bytes != 0 && !e.stack_from_omp) return;
    e.stack_bytes = std::clamp<std::uint64_t>(bytes, bytes ? 64u << 10 : 0, 1u << 30);
    e.stack_from_omp = bytes != 0;
  };
}

}  // namespace

std::vector<ConfigKey> omp_config_keys() {
  using S = OmpSettings;
  KeyTable<S> t;
  t.custom(
      "OMP_NUM_THREADS", "integer", "an integer 1..4096, or a list such as 4,2 (empty: not set)",
      "team size of parallel regions (pins it: no malleable teams unless OMP_DYNAMIC=true)",
      [](S& o, std::string_view v) {
        o.num_threads = trim(v).empty() ? 0 : first_level_threads(v);
      },
      [](const S& o) { return o.num_threads ? std::to_string(o.num_threads) : std::string(); });
  t.custom("OMP_SCHEDULE", "text", "[monotonic:|nonmonotonic:]static|dynamic|guided|auto[,chunk]",
           "schedule of loops with schedule(runtime)", set_schedule, get_schedule);
  t.custom(
      "OMP_DYNAMIC", "boolean", bool_values() + " (empty: not set)",
      "size teams from the CPUs owned and borrowed at each region (default unless "
      "OMP_NUM_THREADS is set)",
      [](S& o, std::string_view v) { o.dynamic = trim(v).empty() ? -1
                                                 : parse_bool(v) ? 1
                                                                 : 0; },
      [](const S& o) { return o.dynamic < 0 ? std::string() : format_bool(o.dynamic != 0); });
  add_case_choice(
      t, "OMP_WAIT_POLICY", &S::wait_policy, Choices<OmpWait>(kOmpWaits), "active, passive",
      "active: threads waiting in barriers spin longer before they sleep", "unknown policy");
  t.integer("OMP_MAX_ACTIVE_LEVELS", &S::max_active_levels, 0, 255,
            "nested active parallel levels allowed (joule runs levels beyond the first "
            "serialised)");
  add_omp_teams_keys(t);
  t.custom(
      "OMP_STACKSIZE", "text", "a size such as 4096, 512K, 16M or 1G (empty: not set)",
      "stack size of the worker threads (JOULE_STACK_SIZE, unless that is set)",
      [](S& o, std::string_view v) { o.stacksize = trim(v).empty() ? 0 : parse_size(v, 1024); },
      [](const S& o) { return o.stacksize ? std::to_string(o.stacksize) + "B" : std::string(); });
  t.integer("OMP_DEFAULT_DEVICE", &S::default_device, 0, 1 << 30,
            "default-device-var: the device of target constructs without a device clause "
            "(joule has none: target regions always run on the host)");
  add_case_choice(
      t, "OMP_TARGET_OFFLOAD", &S::target_offload, Choices<OmpOffload>(kOmpOffloads),
      "default, mandatory, disabled (any case)",
      "mandatory: a target, target data, target update or target enter/exit data construct "
      "stops the program (joule has no device); default and disabled run them on the host",
      "unknown value");
  add_omp_affinity_keys(t);
  add_omp_tool_keys(t);
  t.integer("OMP_MAX_TASK_PRIORITY", &S::max_task_priority, 0, 1 << 30,
            "the highest task priority (omp_get_max_task_priority); a priority clause asking "
            "for more gets this");
  add_case_choice(t, "OMP_DISPLAY_ENV", &S::display_env, Choices<OmpDisplayEnv>(kOmpDisplayEnvs),
                  choice_list(Choices<OmpDisplayEnv>(kOmpDisplayEnvs)),
                  "print the OpenMP settings (OPENMP DISPLAY ENVIRONMENT BEGIN ... END) to "
                  "stderr at the first OpenMP call; verbose adds joule's own",
                  "unknown value");
  add_case_choice(t, "OMP_ALLOCATOR", &S::allocator, Choices<OmpAllocator>(kOmpAllocators),
                  choice_list(Choices<OmpAllocator>(kOmpAllocators)),
                  "the default allocator (def-allocator-var) of omp_alloc and allocate clauses",
                  "unknown allocator");
  std::vector<ConfigKey> keys = t.keys();
  for (auto& k : keys)
    if (k.name == "OMP_STACKSIZE") k.set = with_worker_stacks(k.set);
  return keys;
}

}  // namespace joule::api
