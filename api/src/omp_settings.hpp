// The standard OMP_* variables as joule settings (keys in
// config_keys_omp.cpp); libjoule-omp reads them through
// joule_omp_get_settings() (joule/team.h), whose numbering the enums keep.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "choices.hpp"
#include "config.hpp"
#include "omp_place_list.hpp"

namespace joule::core {
template <class S>
class KeyTable;
}  // namespace joule::core

namespace joule::api {

enum class OmpSchedule { static_ = 1, dynamic = 2, guided = 3, automatic = 4 };
inline constexpr std::pair<const char*, OmpSchedule> kOmpSchedules[] = {
    {"static", OmpSchedule::static_},
    {"dynamic", OmpSchedule::dynamic},
    {"guided", OmpSchedule::guided},
    {"auto", OmpSchedule::automatic}};

enum class OmpBind { off = 0, on = 1, primary = 2, close = 3, spread = 4 };
inline constexpr std::pair<const char*, OmpBind> kOmpBinds[] = {
    {"false", OmpBind::off},      {"true", OmpBind::on},     {"primary", OmpBind::primary},
    {"master", OmpBind::primary}, {"close", OmpBind::close}, {"spread", OmpBind::spread}};

enum class OmpWait { passive, active };
inline constexpr std::pair<const char*, OmpWait> kOmpWaits[] = {{"active", OmpWait::active},
                                                                {"passive", OmpWait::passive}};

// OMP_TARGET_OFFLOAD (OpenMP 5.2 §21.2.8); joule has no device, so only
// mandatory changes anything: it stops the program at a device construct.
enum class OmpOffload { default_ = 0, mandatory = 1, disabled = 2 };
inline constexpr std::pair<const char*, OmpOffload> kOmpOffloads[] = {
    {"default", OmpOffload::default_},
    {"mandatory", OmpOffload::mandatory},
    {"disabled", OmpOffload::disabled}};

enum class OmpDisplayEnv { off = 0, on = 1, verbose = 2 };
inline constexpr std::pair<const char*, OmpDisplayEnv> kOmpDisplayEnvs[] = {
    {"false", OmpDisplayEnv::off},
    {"true", OmpDisplayEnv::on},
    {"verbose", OmpDisplayEnv::verbose}};

// The predefined allocators, numbered as GCC's omp.h numbers omp_allocator_handle_t.
enum class OmpAllocator {
  default_mem = 1,
  large_cap,
  const_mem,
  high_bw,
  low_lat,
  cgroup,
  pteam,
  thread
};
inline constexpr std::pair<const char*, OmpAllocator> kOmpAllocators[] = {
    {"omp_default_mem_alloc", OmpAllocator::default_mem},
    {"omp_large_cap_mem_alloc", OmpAllocator::large_cap},
    {"omp_const_mem_alloc", OmpAllocator::const_mem},
    {"omp_high_bw_mem_alloc", OmpAllocator::high_bw},
    {"omp_low_lat_mem_alloc", OmpAllocator::low_lat},
    {"omp_cgroup_mem_alloc", OmpAllocator::cgroup},
    {"omp_pteam_mem_alloc", OmpAllocator::pteam},
    {"omp_thread_mem_alloc", OmpAllocator::thread}};

// libgomp's default, so that a program's affinity lines read the same on both.
inline constexpr const char* kDefaultAffinityFormat = "level %L thread %i affinity %A";

struct OmpSettings {
  int num_threads = 0;                          // OMP_NUM_THREADS (first level); 0: not set
  OmpSchedule schedule = OmpSchedule::dynamic;  // OMP_SCHEDULE kind
  int schedule_chunk = 0;                       //   its chunk; 0: the kind's default
  bool schedule_monotonic = false;              //   "monotonic:" modifier given
  int dynamic = -1;                             // OMP_DYNAMIC; -1: not set
  OmpWait wait_policy = OmpWait::passive;       // OMP_WAIT_POLICY
  int max_active_levels = 1;                    // OMP_MAX_ACTIVE_LEVELS
  int num_teams = 0;                            // OMP_NUM_TEAMS (nteams-var); 0: not set
  int teams_thread_limit = 0;                   // OMP_TEAMS_THREAD_LIMIT; 0: not set
  std::vector<OmpBind> proc_bind;               // OMP_PROC_BIND, one per nesting level; {}: not set
  std::uint64_t stacksize = 0;                  // OMP_STACKSIZE in bytes; 0: not set
  std::string places_text;                      // OMP_PLACES as given
  PlaceSpec places;                             //   parsed
  std::vector<int> gomp_cpu_affinity;           // GOMP_CPU_AFFINITY: one place per CPU, in order
  bool display_affinity = false;                // OMP_DISPLAY_AFFINITY
  std::string affinity_format = kDefaultAffinityFormat;  // OMP_AFFINITY_FORMAT
  int default_device = 0;                                // OMP_DEFAULT_DEVICE
  OmpOffload target_offload = OmpOffload::default_;      // OMP_TARGET_OFFLOAD
  OmpDisplayEnv display_env = OmpDisplayEnv::off;        // OMP_DISPLAY_ENV
  OmpAllocator allocator = OmpAllocator::default_mem;    // OMP_ALLOCATOR
  int max_task_priority = 0;                             // OMP_MAX_TASK_PRIORITY
  bool tool = true;                                      // OMP_TOOL (enabled / disabled)
  std::string tool_libraries;                            // OMP_TOOL_LIBRARIES
  std::string tool_verbose_init;                         // OMP_TOOL_VERBOSE_INIT; "": disabled

  // bind-var of the outer team: OMP_PROC_BIND's first level; not set, true
  // when places are given (OMP_PLACES or GOMP_CPU_AFFINITY), as libgomp does.
  OmpBind first_bind() const {
    if (!proc_bind.empty()) return proc_bind.front();
    return places.empty() && gomp_cpu_affinity.empty() ? OmpBind::off : OmpBind::on;
  }
};

std::vector<core::ConfigKey> omp_config_keys();
// OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY, OMP_DISPLAY_AFFINITY and
// OMP_AFFINITY_FORMAT (config_keys_omp_affinity.cpp).
void add_omp_affinity_keys(core::KeyTable<OmpSettings>& t);
// OMP_TOOL, OMP_TOOL_LIBRARIES, OMP_TOOL_VERBOSE_INIT (config_keys_omp_tool.cpp).
void add_omp_tool_keys(core::KeyTable<OmpSettings>& t);

}  // namespace joule::api
