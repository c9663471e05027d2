// The lending keys: values, defaults, errors that name the allowed values.
#include <gtest/gtest.h>

#include <unistd.h>

#include "config.hpp"
#include "config_errors.hpp"
#include "joule/joule.h"
#include "joule/joule.hpp"
#include "lending_settings.hpp"
#include "test_support.hpp"

namespace {

using joule::core::Config;
using namespace joule::lending;

using joule_test::config_error_of;

TEST(LewiConfig, DefaultsAndValues) {
  Config c;
  const LendingSettings& s = c.get<LendingSettings>();
  EXPECT_EQ(s.mode, LewiMode::off);
  EXPECT_EQ(s.policy, LewiPolicy::autonomous);
  EXPECT_FALSE(s.keep_cpu);
  EXPECT_EQ(s.drom_timeout_ms, 5000);
  EXPECT_EQ(s.mpi_yield, MpiYield::automatic);
  c.set("JOULE_LENDING", "node");
  c.set("JOULE_LENDING_POLICY", "mpi");
  c.set("JOULE_LENDING_KEEP_CPU", "yes");
  c.set("JOULE_LENDING_SHM", "joule-cpus-test");
  c.set("JOULE_LENDING_DROM_TIMEOUT_MS", "0");
  c.set("JOULE_MPI_YIELD", "off");
  EXPECT_EQ(s.mode, LewiMode::node);
  EXPECT_EQ(s.policy, LewiPolicy::mpi);
  EXPECT_TRUE(s.keep_cpu);
  EXPECT_EQ(s.shm, "/joule-cpus-test");
  EXPECT_EQ(s.drom_timeout_ms, 0);
  EXPECT_EQ(s.mpi_yield, MpiYield::off);
  const std::string dump = c.dump_text();
  EXPECT_NE(dump.find("/joule-cpus-test"), std::string::npos) << dump;
  EXPECT_NE(Config{}.dump_text().find("/joule-cpus-" + std::to_string(::geteuid())),
            std::string::npos);
}

// Scripts written for the JOULE_LEWI* names keep working: each old name
// sets the JOULE_LENDING* key it was renamed to.
TEST(LewiConfig, TheOldLewiNamesStillSetTheLendingKeys) {
  Config c;
  const LendingSettings& s = c.get<LendingSettings>();
  c.set("JOULE_LEWI", "local");
  c.set("JOULE_LEWI_POLICY", "mpi");
  c.set("JOULE_LEWI_KEEP_CPU", "1");
  c.set("JOULE_LEWI_SHM", "joule-cpus-old");
  c.set("JOULE_LEWI_DROM_TIMEOUT_MS", "7");
  c.set("JOULE_LEWI_RECLAIM_TIMEOUT_MS", "9");
  EXPECT_EQ(s.mode, LewiMode::local);
  EXPECT_EQ(s.policy, LewiPolicy::mpi);
  EXPECT_TRUE(s.keep_cpu);
  EXPECT_EQ(s.shm, "/joule-cpus-old");
  EXPECT_EQ(s.drom_timeout_ms, 7);
  EXPECT_EQ(s.reclaim_timeout_ms, 9);
  const std::string dump = c.dump_text();
  EXPECT_NE(dump.find("JOULE_LENDING=local"), std::string::npos) << dump;
  EXPECT_NE(dump.find("JOULE_LENDING_RECLAIM_TIMEOUT_MS=9"), std::string::npos) << dump;
  EXPECT_EQ(dump.find("JOULE_LEWI"), std::string::npos) << dump;
}

TEST(LewiConfig, BadValuesNameTheKeyAndTheAllowedValues) {
  std::string e = config_error_of("JOULE_LENDING", "on");
  EXPECT_NE(e.find("JOULE_LENDING=on"), std::string::npos) << e;
  EXPECT_NE(e.find("off, local, node"), std::string::npos) << e;
  e = config_error_of("JOULE_LENDING_POLICY", "greedy");
  EXPECT_NE(e.find("auto, mpi"), std::string::npos) << e;
  e = config_error_of("JOULE_LENDING_SHM", "/a/b");
  EXPECT_NE(e.find("JOULE_LENDING_SHM"), std::string::npos) << e;
  EXPECT_NE(config_error_of("JOULE_LENDING_SHM", std::string(300, 'x').c_str()), "");
  EXPECT_NE(config_error_of("JOULE_LENDING_DROM_TIMEOUT_MS", "-1"), "");
  EXPECT_NE(config_error_of("JOULE_LENDING_KEEP_CPU", "maybe"), "");
  e = config_error_of("JOULE_MPI_YIELD", "1");
  EXPECT_NE(e.find("JOULE_MPI_YIELD=1"), std::string::npos) << e;
  EXPECT_NE(e.find("auto, on, off"), std::string::npos) << e;
}

// What libjoule-mpi asks before MPI_Init: auto follows JOULE_LENDING.
TEST(LewiConfig, MpiShouldYieldFollowsTheKeyAndTheLendingMode) {
  struct Case {
    const char *lewi, *yield;
    int expect;
  };
  for (const Case& k : {Case{"off", nullptr, 0}, Case{"node", nullptr, 1}, Case{"local", "auto", 1},
                        Case{"node", "off", 0}, Case{"off", "on", 1}}) {
    joule_test::scoped_env lewi("JOULE_LENDING", k.lewi);
    joule_test::scoped_env yield("JOULE_MPI_YIELD",
                                 k.yield ? std::optional<std::string>(k.yield) : std::nullopt);
    int got = -1;
    EXPECT_EQ(joule_mpi_should_yield(&got), JOULE_OK);
    EXPECT_EQ(got, k.expect) << "JOULE_LENDING=" << k.lewi
                             << " JOULE_MPI_YIELD=" << (k.yield ? k.yield : "");
  }
  {
    // The old name in the environment, as a script from before the rename sets it.
    joule_test::scoped_env lewi("JOULE_LEWI", "node");
    joule_test::scoped_env yield("JOULE_MPI_YIELD", std::nullopt);
    int got = -1;
    EXPECT_EQ(joule_mpi_should_yield(&got), JOULE_OK);
    EXPECT_EQ(got, 1) << "JOULE_LEWI=node";
  }
  joule_test::scoped_env bad("JOULE_MPI_YIELD", "sometimes");
  int got = -1;
  EXPECT_EQ(joule_mpi_should_yield(&got), JOULE_ERR_CONFIG);
  EXPECT_EQ(joule_mpi_should_yield(nullptr), JOULE_ERR_INVALID);
}

}  // namespace
