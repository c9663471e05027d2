// Configuration sources: a KEY=VALUE file (errors report file:line), the
// environment, and the settings list, combined as settings > environment >
// file; and joule_init_with. These tests change the environment, so they run
// sequentially in this one process.
#include "config_fixture.hpp"
#include "test_support.hpp"

#include <joule/joule.h>
#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace joule_test;

class ConfigSources : public config_fixture {
 protected:
  // Starts a runtime reading file `path` and expects a configuration error;
  // returns its message.
  static std::string file_error(const std::string& path) {
    try {
      joule::runtime rt({{"JOULE_CONFIG_FILE", path}});
    } catch (const joule::error& e) {
      EXPECT_EQ(e.code(), JOULE_ERR_CONFIG) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "the file was accepted";
    return {};
  }
};

TEST_F(ConfigSources, ValidConfigFile) {
  temp_file f("# a comment\n\nJOULE_WORKERS=3\nJOULE_QUEUES=lifo\n# end\n");
  joule::runtime rt({{"JOULE_CONFIG_FILE", f.path()}});
  EXPECT_EQ(joule::num_workers(), 3);
  EXPECT_TRUE(run_a_few_tasks());
}

TEST_F(ConfigSources, MissingFileIsNamed) {
  const std::string msg = file_error("/nonexistent/joule.conf");
  EXPECT_NE(msg.find("/nonexistent/joule.conf"), std::string::npos) << msg;
}

// ---- configuration files -----------------------------------------------------

TEST_F(ConfigSources, FileBadLineReportsFileAndLine) {
  temp_file f("JOULE_WORKERS=2\nthis line is not a setting\n");
  const std::string msg = file_error(f.path());
  EXPECT_NE(msg.find(f.path() + ":2"), std::string::npos) << msg;
}

TEST_F(ConfigSources, FileUnknownKeyReportsFileAndLine) {
  temp_file f("# header\nJOULE_WORKERS=2\nJOULE_BOGUS=1\n");
  const std::string msg = file_error(f.path());
  EXPECT_NE(msg.find(f.path() + ":3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("JOULE_BOGUS"), std::string::npos) << msg;
}

TEST_F(ConfigSources, FileBadValueReportsFileAndLine) {
  temp_file f("JOULE_QUEUES=nope\n");
  const std::string msg = file_error(f.path());
  EXPECT_NE(msg.find(f.path() + ":1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("JOULE_QUEUES"), std::string::npos) << msg;
}

// ---- environment -------------------------------------------------------------

TEST_F(ConfigSources, EnvironmentSetsWorkers) {
  scoped_env env("JOULE_WORKERS", "3");
  joule::runtime rt;
  EXPECT_EQ(joule::num_workers(), 3);
  EXPECT_TRUE(run_a_few_tasks());
}

TEST_F(ConfigSources, SettingsOverrideEnvironment) {
  scoped_env env("JOULE_WORKERS", "3");
  joule::runtime rt({{"JOULE_WORKERS", "1"}});
  EXPECT_EQ(joule::num_workers(), 1);
}

TEST_F(ConfigSources, EnvironmentOverridesFile) {
  temp_file f("JOULE_WORKERS=1\nJOULE_QUEUES=fifo\n");
  scoped_env file("JOULE_CONFIG_FILE", f.path());
  scoped_env env("JOULE_WORKERS", "3");
  joule::runtime rt;
  EXPECT_EQ(joule::num_workers(), 3);
}

TEST_F(ConfigSources, FileFromEnvironment) {
  temp_file f("JOULE_WORKERS=3\n");
  scoped_env file("JOULE_CONFIG_FILE", f.path());
  joule::runtime rt;
  EXPECT_EQ(joule::num_workers(), 3);
}

TEST_F(ConfigSources, EnvironmentBadValue) {
  scoped_env env("JOULE_QUEUES", "bogus");
  try {
    joule::runtime rt;
    ADD_FAILURE() << "accepted JOULE_QUEUES=bogus";
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_CONFIG);
    EXPECT_NE(std::string(e.what()).find("JOULE_QUEUES"), std::string::npos) << e.what();
  }
}

TEST_F(ConfigSources, EnvironmentUnknownKey) {
  scoped_env env("JOULE_NOT_A_KEY", "1");
  try {
    joule::runtime rt;
    ADD_FAILURE() << "accepted JOULE_NOT_A_KEY in the environment";
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_CONFIG);
    EXPECT_NE(std::string(e.what()).find("JOULE_NOT_A_KEY"), std::string::npos) << e.what();
  }
}

TEST_F(ConfigSources, EnvironmentDump) {
  scoped_env env("JOULE_CONFIG_DUMP", "yes");
  testing::internal::CaptureStderr();
  { joule::runtime rt({{"JOULE_WORKERS", "2"}}); }
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("JOULE_WORKERS"), std::string::npos) << out;
}

// ---- C ABI -----------------------------------------------------------------

TEST_F(ConfigSources, CInitWithBadValue) {
  const char* keys[] = {"JOULE_WORKERS", "JOULE_QUEUES"};
  const char* values[] = {"2", "nonsense"};
  EXPECT_EQ(joule_init_with(keys, values, 2), JOULE_ERR_CONFIG);
  ASSERT_NE(joule_last_error(), nullptr);
  EXPECT_NE(std::string(joule_last_error()).find("JOULE_QUEUES"), std::string::npos);
  const char* good[] = {"2", "fifo"};
  ASSERT_EQ(joule_init_with(keys, good, 2), JOULE_OK);
  EXPECT_EQ(joule_num_workers(), 2);
  EXPECT_EQ(joule_finalize(), JOULE_OK);
}

}  // namespace
