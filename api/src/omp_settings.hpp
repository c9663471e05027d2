// The standard OMP_* variables as joule settings (keys in
// config_keys_omp.cpp); libjoule-omp reads them through
// joule_omp_get_settings() (joule/team.h), whose numbering the enums keep.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "choices.hpp"
#include "config.hpp"

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

struct OmpSettings {
  int num_threads = 0;                          // OMP_NUM_THREADS (first level); 0: not set
  OmpSchedule schedule = OmpSchedule::dynamic;  // OMP_SCHEDULE kind
  int schedule_chunk = 0;                       //   its chunk; 0: the kind's default
  bool schedule_monotonic = false;              //   "monotonic:" modifier given
  int dynamic = -1;                             // OMP_DYNAMIC; -1: not set
  OmpWait wait_policy = OmpWait::passive;       // OMP_WAIT_POLICY
  int max_active_levels = 1;                    // OMP_MAX_ACTIVE_LEVELS
  OmpBind proc_bind = OmpBind::off;             // OMP_PROC_BIND (first level)
  std::uint64_t stacksize = 0;                  // OMP_STACKSIZE in bytes; 0: not set
};

std::vector<core::ConfigKey> omp_config_keys();

}  // namespace joule::api
