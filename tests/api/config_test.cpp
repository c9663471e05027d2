// Configuration: every key with valid values starts a runtime that runs tasks;
// every key with an invalid value fails with JOULE_ERR_CONFIG and a message
// naming the key (and, for enumerations, the allowed values); unknown keys
// list the valid ones; JOULE_CONFIG_DUMP prints the configuration. Sources
// (files, environment) are in config_sources_test.cpp.
#include "config_fixture.hpp"
#include "test_support.hpp"

#include <joule/joule.h>
#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace joule_test;
using Config = config_fixture;

struct kv {
  std::string key, value;
};

std::string param_name(const testing::TestParamInfo<kv>& info) {
  std::string n = info.param.key.substr(6) + "_" + info.param.value;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n + "_" + std::to_string(info.index);
}

// ---- valid values ----------------------------------------------------------

class ValidSetting : public Config, public testing::WithParamInterface<kv> {};

TEST_P(ValidSetting, StartsAndRunsTasks) {
  const kv& p = GetParam();
  testing::internal::CaptureStderr();  // JOULE_CONFIG_DUMP=1 prints
  std::optional<bool> ok;
  try {
    joule::runtime rt({{p.key, p.value}});
    ok = run_a_few_tasks();
  } catch (const std::exception& e) {
    testing::internal::GetCapturedStderr();
    FAIL() << p.key << "=" << p.value << " rejected: " << e.what();
  }
  testing::internal::GetCapturedStderr();
  EXPECT_TRUE(ok.value_or(false));
}

std::vector<kv> valid_settings() {
  std::vector<kv> v;
  for (const char* w : {"0", "1", "2", "3", "4"}) v.push_back({"JOULE_WORKERS", w});
  for (const char* s : {"fifo", "lifo", "work-stealing", "priority"})
    v.push_back({"JOULE_QUEUES", s});
  for (const char* key : {"JOULE_IMMEDIATE_SUCCESSOR", "JOULE_BIND", "JOULE_CONFIG_DUMP"})
    for (const char* b : {"0", "1", "true", "false", "yes", "no", "on", "off"})
      v.push_back({key, b});
  for (const char* s : {"0", "1", "100", "10000"}) v.push_back({"JOULE_SPIN_US", s});
  for (const char* t : {"0", "1", "16", "100000"}) v.push_back({"JOULE_THROTTLE_TASKS", t});
  for (const char* o : {"auto", "yes", "no"}) v.push_back({"JOULE_OVERSUBSCRIBED", o});
  v.push_back({"JOULE_CGROUP_ROOT", "/nonexistent"});  // no files there: no quota
  const auto cpus = allowed_cpus();
  if (!cpus.empty()) {
    v.push_back({"JOULE_CPUS", std::to_string(cpus.front())});
    v.push_back({"JOULE_CPUS", cpu_list(cpus)});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Keys, ValidSetting, testing::ValuesIn(valid_settings()), param_name);

// ---- invalid values --------------------------------------------------------

class InvalidSetting : public Config, public testing::WithParamInterface<kv> {};

TEST_P(InvalidSetting, FailsNamingTheKey) {
  const kv& p = GetParam();
  const std::string msg = start_error(p.key, p.value);
  if (p.key == "JOULE_QUEUES") {
    for (const char* s : {"fifo", "lifo", "work-stealing", "priority"})
      EXPECT_NE(msg.find(s), std::string::npos) << "allowed value " << s << " not listed: " << msg;
  }
  if (p.key == "JOULE_IMMEDIATE_SUCCESSOR" || p.key == "JOULE_BIND" ||
      p.key == "JOULE_CONFIG_DUMP") {
    for (const char* s : {"true", "false"})
      EXPECT_NE(msg.find(s), std::string::npos) << "allowed value " << s << " not listed: " << msg;
  }
  // The runtime is usable after a failed start.
  joule::runtime rt({{"JOULE_WORKERS", "2"}});
  EXPECT_TRUE(run_a_few_tasks());
}

std::vector<kv> invalid_settings() {
  std::vector<kv> v;
  for (const char* w : {"-1", "abc", "2x", "1.5", "99999999999999999999999"})
    v.push_back({"JOULE_WORKERS", w});
  for (const char* s : {"random", "fifo2"}) v.push_back({"JOULE_QUEUES", s});
  for (const char* key : {"JOULE_IMMEDIATE_SUCCESSOR", "JOULE_BIND", "JOULE_CONFIG_DUMP"})
    for (const char* b : {"maybe", "2", "yess"}) v.push_back({key, b});
  for (const char* s : {"-1", "abc", "1e3"}) v.push_back({"JOULE_SPIN_US", s});
  for (const char* t : {"-5", "many"}) v.push_back({"JOULE_THROTTLE_TASKS", t});
  for (const char* o : {"maybe", "1"}) v.push_back({"JOULE_OVERSUBSCRIBED", o});
  v.push_back({"JOULE_CGROUP_ROOT", " "});
  for (const char* c : {"abc", "3-1", "0-x", "-1"}) v.push_back({"JOULE_CPUS", c});
  v.push_back({"JOULE_CONFIG_FILE", "/nonexistent/joule.conf"});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Keys, InvalidSetting, testing::ValuesIn(invalid_settings()), param_name);

TEST_F(Config, UnknownKeyListsValidKeys) {
  for (const char* bad : {"JOULE_NOT_A_KEY", "JOULE_WORKER"}) {
    const std::string msg = start_error(bad, "1");
    for (const auto& k : kKeys)
      EXPECT_NE(msg.find(k), std::string::npos) << k << " not listed in: " << msg;
  }
}

TEST_F(Config, NonJouleKeyInSettingsIsRejected) {
  try {
    joule::runtime rt({{"WORKERS", "2"}});
    ADD_FAILURE() << "accepted a key without the JOULE_ prefix";
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_CONFIG);
  }
}

// ---- semantics of particular keys ------------------------------------------

TEST_F(Config, WorkersZeroMeansOnePerCpu) {
  TempDir no_cgroups;  // the machine's CPU quota, if any, would lower the count
  joule::runtime rt({{"JOULE_WORKERS", "0"}, {"JOULE_CGROUP_ROOT", no_cgroups.path()}});
  EXPECT_EQ(joule::num_workers(), static_cast<int>(allowed_cpus().size()));
}

TEST_F(Config, CpusRestrictsDefaultWorkers) {
  const auto cpus = allowed_cpus();
  ASSERT_FALSE(cpus.empty());
  joule::runtime rt({{"JOULE_CPUS", std::to_string(cpus.back())}, {"JOULE_WORKERS", "0"}});
  EXPECT_EQ(joule::num_workers(), 1);
  EXPECT_TRUE(run_a_few_tasks());
}

TEST_F(Config, MoreWorkersThanCpus) {
  const auto cpus = allowed_cpus();
  ASSERT_FALSE(cpus.empty());
  joule::runtime rt({{"JOULE_CPUS", std::to_string(cpus.front())}, {"JOULE_WORKERS", "4"}});
  EXPECT_EQ(joule::num_workers(), 4);
  EXPECT_TRUE(run_a_few_tasks());
}

TEST_F(Config, DumpPrintsEffectiveConfiguration) {
  testing::internal::CaptureStderr();
  {
    joule::runtime rt({{"JOULE_CONFIG_DUMP", "1"},
                       {"JOULE_QUEUES", "lifo"},
                       {"JOULE_WORKERS", "3"},
                       {"JOULE_SPIN_US", "123"}});
  }
  const std::string out = testing::internal::GetCapturedStderr();
  for (const char* k : {"JOULE_WORKERS", "JOULE_QUEUES", "JOULE_IMMEDIATE_SUCCESSOR", "JOULE_BIND",
                        "JOULE_SPIN_US", "JOULE_THROTTLE_TASKS"})
    EXPECT_NE(out.find(k), std::string::npos) << k << " missing from the dump:\n" << out;
  EXPECT_NE(out.find("lifo"), std::string::npos) << out;
  EXPECT_NE(out.find("123"), std::string::npos) << out;
}

// JOULE_CONFIG_DUMP=1 with a key set under its old name (an alias): the
// dump names the key by its new name only.
TEST_F(Config, DumpNamesAKeySetByItsOldNameByItsNewName) {
  testing::internal::CaptureStderr();
  { joule::runtime rt({{"JOULE_CONFIG_DUMP", "1"}, {"JOULE_SCHEDULER", "fifo"}}); }
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("JOULE_QUEUES=fifo"), std::string::npos) << out;
  EXPECT_EQ(out.find("JOULE_SCHEDULER"), std::string::npos) << out;
}

TEST_F(Config, NoDumpByDefault) {
  testing::internal::CaptureStderr();
  { joule::runtime rt({{"JOULE_WORKERS", "2"}}); }
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out.find("JOULE_QUEUES"), std::string::npos) << out;
}

}  // namespace
