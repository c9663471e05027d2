// The internal control variables, filled once from joule's configuration
// (the OMP_* keys: api/src/config_keys_omp.cpp), and the messages for what
// is not supported. The ICVs are process-wide, not per task.
#include <sched.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "affinity.hpp"
#include "allocators.hpp"
#include "joule/team.h"
#include "ompt.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

Icv g_icv;
std::once_flag g_once;
int g_display_env = 0;  // OMP_DISPLAY_ENV: 1 true, 2 verbose

int process_cpus() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

// Starts joule with `keys` overriding the configuration (unless the program
// started it); joule_init stops it at exit (report, traces, frequencies).
void init_with(const std::vector<std::pair<std::string, std::string>>& keys) {
  std::vector<const char*> k, v;
  for (const auto& [key, value] : keys) {
    k.push_back(key.c_str());
    v.push_back(value.c_str());
  }
  const int rc =
      keys.empty() ? joule_init() : joule_init_with(k.data(), v.data(), int(keys.size()));
  if (rc != JOULE_OK && rc != JOULE_ERR_STATE) fail_start(joule_last_error());
}

// Starts joule (unless the program did). With threads bound to places, the
// workers and their CPUs are the plan's (places.cpp). Otherwise
// OMP_NUM_THREADS above the CPUs, with JOULE_WORKERS not set, gets that many
// workers sharing the CPUs, as libgomp gives that many threads.
joule_omp_settings_t start_joule() {
  joule_omp_settings_t s{};
  s.struct_size = sizeof(s);
  if (joule_omp_get_settings(&s) != JOULE_OK) {
    joule_init();  // fails too, with the message naming the bad value
    fail_start(joule_last_error());
  }
  undo_libgomp_binding();
  const joule_omp_affinity_t a = load_affinity();
  std::vector<std::pair<std::string, std::string>> keys;
  if (a.num_places > 0) {
    if (*a.cpus) keys.emplace_back("JOULE_CPUS", a.cpus);
    if (a.workers > 0) keys.emplace_back("JOULE_WORKERS", std::to_string(a.workers));
  } else if (s.workers == 0 && s.num_threads > (s.cpus ? s.cpus : process_cpus())) {
    keys.emplace_back("JOULE_WORKERS", std::to_string(s.num_threads));
  }
  init_with(keys);
  return s;
}

void load() {
  const joule_omp_settings_t s = start_joule();
  g_icv.nthreads = s.num_threads;
  // Malleable by default; OMP_NUM_THREADS pins the size unless OMP_DYNAMIC says otherwise.
  g_icv.dynamic = s.dynamic < 0 ? s.num_threads == 0 : s.dynamic != 0;
  g_icv.dynamic_explicit = s.dynamic >= 0;
  g_icv.run_sched = s.schedule_kind;
  g_icv.run_chunk = s.schedule_chunk;
  g_icv.max_active_levels = s.max_active_levels;
  g_icv.nteams = s.num_teams;
  g_icv.teams_thread_limit = s.teams_thread_limit;
  g_icv.wait_active = s.wait_active != 0;
  g_icv.oversubscribed = joule_oversubscribed() != 0;
  g_icv.default_device = s.default_device;
  g_icv.target_offload = s.target_offload;
  g_icv.max_task_priority = s.max_task_priority;
  load_default_allocator(Handle(s.allocator));
  g_display_env = s.display_env;
  ompt::start_tool();  // the tool's initializer sees the runtime started
}

}  // namespace

Icv& icv() {
  ensure_init();
  return g_icv;
}

std::atomic<bool> g_started{false};

// OMP_DISPLAY_ENV prints once the ICVs are set (the printing reads them,
// and so comes back here: the flag is taken before). g_started is set
// after both, as before the fast path (team.hpp) every call took this way.
void ensure_init_slow() {
  std::call_once(g_once, load);
  if (g_display_env) [[unlikely]] {
    static std::atomic<bool> shown{false};
    if (!shown.exchange(true)) display_env(g_display_env == 2);
  }
  g_started.store(true, std::memory_order_release);
}

void fail_start(const char* what) {
  std::fprintf(stderr, "libjoule-omp: %s\n", what);
  std::exit(1);
}

void unsupported(const char* entry) {
  std::fprintf(stderr, "libjoule-omp: %s is not supported by joule (see docs/openmp.md)\n", entry);
  std::abort();
}

void warn_once(std::atomic<bool>& flag, const char* msg) {
  if (!flag.exchange(true)) std::fprintf(stderr, "%s\n", msg);
}

}  // namespace joule::omp
