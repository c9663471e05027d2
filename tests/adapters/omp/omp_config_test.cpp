// The OMP_* keys of joule's configuration (api/src/config_keys_omp.cpp):
// defaults, accepted spellings, and errors that name the allowed values.
#include <gtest/gtest.h>

#include <cstdlib>

#include "config.hpp"
#include "config_errors.hpp"
#include "joule/joule.h"
#include "joule/team.h"
#include "joule/types.hpp"
#include "omp_settings.hpp"

namespace {

using joule::core::Config;
using namespace joule::api;

using joule_test::config_error_of;

TEST(OmpConfig, Defaults) {
  const OmpSettings o;
  EXPECT_EQ(o.num_threads, 0);
  EXPECT_EQ(o.schedule, OmpSchedule::dynamic);
  EXPECT_EQ(o.dynamic, -1);
  EXPECT_EQ(o.max_active_levels, 1);
  EXPECT_TRUE(o.proc_bind.empty());
  EXPECT_EQ(o.first_bind(), OmpBind::off);
  EXPECT_EQ(o.stacksize, 0u);
  EXPECT_EQ(Config{}.get<OmpSettings>().schedule, OmpSchedule::dynamic);
}

TEST(OmpConfig, Values) {
  Config c;
  c.set("OMP_NUM_THREADS", "4,2");
  c.set("OMP_SCHEDULE", "monotonic:Guided,7");
  c.set("OMP_DYNAMIC", "true");
  c.set("OMP_WAIT_POLICY", "ACTIVE");
  c.set("OMP_MAX_ACTIVE_LEVELS", "3");
  c.set("OMP_PROC_BIND", "master,close");
  c.set("OMP_STACKSIZE", "16M");
  const OmpSettings& o = c.get<OmpSettings>();
  EXPECT_EQ(o.num_threads, 4);
  EXPECT_EQ(o.schedule, OmpSchedule::guided);
  EXPECT_EQ(o.schedule_chunk, 7);
  EXPECT_TRUE(o.schedule_monotonic);
  EXPECT_EQ(o.dynamic, 1);
  EXPECT_EQ(o.wait_policy, OmpWait::active);
  EXPECT_EQ(o.max_active_levels, 3);
  EXPECT_EQ(o.proc_bind, (std::vector<OmpBind>{OmpBind::primary, OmpBind::close}));
  EXPECT_EQ(o.stacksize, 16u << 20);
  // What the dump prints reads back as the same value (a config file made
  // from JOULE_CONFIG_DUMP's output means the same).
  const std::string dumped = c.dump_text();
  EXPECT_NE(dumped.find("OMP_STACKSIZE=16777216B"), std::string::npos) << dumped;
  Config again;
  again.set("OMP_STACKSIZE", "16777216B");
  EXPECT_EQ(again.get<OmpSettings>().stacksize, 16u << 20);
  c.set("OMP_STACKSIZE", "100");
  EXPECT_EQ(o.stacksize, 100u * 1024);
  c.set("OMP_SCHEDULE", "static");
  EXPECT_EQ(o.schedule_chunk, 0);
}

TEST(OmpConfig, BadValuesNameTheAllowedOnes) {
  EXPECT_NE(config_error_of("OMP_NUM_THREADS", "0").find("allowed values: an integer 1..4096"),
            std::string::npos);
  EXPECT_NE(config_error_of("OMP_NUM_THREADS", "many").find("OMP_NUM_THREADS=many"),
            std::string::npos);
  EXPECT_NE(config_error_of("OMP_SCHEDULE", "fast").find("static|dynamic|guided|auto"),
            std::string::npos);
  EXPECT_NE(config_error_of("OMP_SCHEDULE", "sometimes:static").find("allowed values"),
            std::string::npos);
  EXPECT_NE(config_error_of("OMP_DYNAMIC", "maybe").find("true"), std::string::npos);
  EXPECT_NE(config_error_of("OMP_WAIT_POLICY", "busy").find("active, passive"), std::string::npos);
  EXPECT_NE(config_error_of("OMP_PROC_BIND", "tight").find("spread"), std::string::npos);
  EXPECT_NE(config_error_of("OMP_STACKSIZE", "12Q").find("16M"), std::string::npos);
}

// Read from the environment like JOULE_* keys; other OMP_* variables are
// left to other runtimes.
TEST(OmpConfig, EnvironmentThroughTheRuntime) {
  ::setenv("OMP_SCHEDULE", "guided,3", 1);
  ::setenv("OMP_DISPLAY_ENV", "true", 1);  // not joule's: ignored, not an error
  ASSERT_EQ(joule_init(), JOULE_OK) << joule_last_error();
  joule_omp_settings_t s{};
  s.struct_size = sizeof(s);
  ASSERT_EQ(joule_omp_get_settings(&s), JOULE_OK);
  EXPECT_EQ(s.schedule_kind, 3);
  EXPECT_EQ(s.schedule_chunk, 3);
  EXPECT_EQ(joule_finalize(), JOULE_OK);
  ::unsetenv("OMP_SCHEDULE");
  ::unsetenv("OMP_DISPLAY_ENV");
}

}  // namespace
