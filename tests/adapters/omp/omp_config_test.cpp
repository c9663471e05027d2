// The OMP_* keys of joule's configuration (api/src/config_keys_omp.cpp):
// defaults, accepted spellings, and errors that name the allowed values.
#include <gtest/gtest.h>

#include <cstdlib>

#include "config.hpp"
#include "joule/joule.h"
#include "joule/team.h"
#include "joule/types.hpp"

namespace {

using joule::core::Config;

std::string error_of(const char* key, const char* value) {
  Config c;
  try {
    c.set(key, value);
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_CONFIG);
    return e.what();
  }
  return "";
}

TEST(OmpConfig, Defaults) {
  Config c;
  EXPECT_EQ(c.omp.num_threads, 0);
  EXPECT_EQ(c.omp.schedule, "dynamic");
  EXPECT_EQ(c.omp.dynamic, -1);
  EXPECT_EQ(c.omp.max_active_levels, 1);
  EXPECT_EQ(c.omp.proc_bind, "false");
  EXPECT_EQ(c.omp.stacksize, 0u);
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
  EXPECT_EQ(c.omp.num_threads, 4);
  EXPECT_EQ(c.omp.schedule, "guided");
  EXPECT_EQ(c.omp.schedule_chunk, 7);
  EXPECT_TRUE(c.omp.schedule_monotonic);
  EXPECT_EQ(c.omp.dynamic, 1);
  EXPECT_EQ(c.omp.wait_policy, "active");
  EXPECT_EQ(c.omp.max_active_levels, 3);
  EXPECT_EQ(c.omp.proc_bind, "primary");
  EXPECT_EQ(c.omp.stacksize, 16u << 20);
  c.set("OMP_STACKSIZE", "100");
  EXPECT_EQ(c.omp.stacksize, 100u * 1024);
  c.set("OMP_SCHEDULE", "static");
  EXPECT_EQ(c.omp.schedule_chunk, 0);
}

TEST(OmpConfig, BadValuesNameTheAllowedOnes) {
  EXPECT_NE(error_of("OMP_NUM_THREADS", "0").find("allowed values: an integer 1..4096"),
            std::string::npos);
  EXPECT_NE(error_of("OMP_NUM_THREADS", "many").find("OMP_NUM_THREADS=many"), std::string::npos);
  EXPECT_NE(error_of("OMP_SCHEDULE", "fast").find("static|dynamic|guided|auto"), std::string::npos);
  EXPECT_NE(error_of("OMP_SCHEDULE", "sometimes:static").find("allowed values"), std::string::npos);
  EXPECT_NE(error_of("OMP_DYNAMIC", "maybe").find("true"), std::string::npos);
  EXPECT_NE(error_of("OMP_WAIT_POLICY", "busy").find("active, passive"), std::string::npos);
  EXPECT_NE(error_of("OMP_PROC_BIND", "tight").find("spread"), std::string::npos);
  EXPECT_NE(error_of("OMP_STACKSIZE", "12Q").find("16M"), std::string::npos);
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
