// The lending keys: values, defaults, errors that name the allowed values.
#include <gtest/gtest.h>

#include <unistd.h>

#include "config.hpp"
#include "joule/joule.hpp"

namespace {

using joule::rt::Config;

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

TEST(LewiConfig, DefaultsAndValues) {
  Config c;
  EXPECT_EQ(c.lewi.mode, "off");
  EXPECT_EQ(c.lewi.policy, "auto");
  EXPECT_FALSE(c.lewi.keep_cpu);
  EXPECT_EQ(c.lewi.drom_timeout_ms, 5000);
  c.set("JOULE_LEWI", "node");
  c.set("JOULE_LEWI_POLICY", "mpi");
  c.set("JOULE_LEWI_KEEP_CPU", "yes");
  c.set("JOULE_LEWI_SHM", "joule-cpus-test");
  c.set("JOULE_LEWI_DROM_TIMEOUT_MS", "0");
  EXPECT_EQ(c.lewi.mode, "node");
  EXPECT_EQ(c.lewi.policy, "mpi");
  EXPECT_TRUE(c.lewi.keep_cpu);
  EXPECT_EQ(c.lewi.shm, "/joule-cpus-test");
  EXPECT_EQ(c.lewi.drom_timeout_ms, 0);
  const std::string dump = c.dump_text();
  EXPECT_NE(dump.find("/joule-cpus-test"), std::string::npos) << dump;
  EXPECT_NE(Config{}.dump_text().find("/joule-cpus-" + std::to_string(::geteuid())),
            std::string::npos);
}

TEST(LewiConfig, BadValuesNameTheKeyAndTheAllowedValues) {
  std::string e = error_of("JOULE_LEWI", "on");
  EXPECT_NE(e.find("JOULE_LEWI=on"), std::string::npos) << e;
  EXPECT_NE(e.find("off, local, node"), std::string::npos) << e;
  e = error_of("JOULE_LEWI_POLICY", "greedy");
  EXPECT_NE(e.find("auto, mpi"), std::string::npos) << e;
  e = error_of("JOULE_LEWI_SHM", "/a/b");
  EXPECT_NE(e.find("JOULE_LEWI_SHM"), std::string::npos) << e;
  EXPECT_NE(error_of("JOULE_LEWI_SHM", std::string(300, 'x').c_str()), "");
  EXPECT_NE(error_of("JOULE_LEWI_DROM_TIMEOUT_MS", "-1"), "");
  EXPECT_NE(error_of("JOULE_LEWI_KEEP_CPU", "maybe"), "");
}

}  // namespace
