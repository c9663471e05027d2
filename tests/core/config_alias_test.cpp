// Old setting names (aliases): accepted from every source, mapped to the key
// they name, printed under the new name, and refused when one source sets
// both names to different values.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "config.hpp"
#include "joule/types.hpp"
#include "queue_settings.hpp"
#include "test_support.hpp"

namespace {

using joule::core::Config;
using joule::core::config_keys;
using joule::core::find_config_key;
using joule::queues::QueueSettings;

// The message of the configuration error `f` throws, or "" when it throws none.
template <class F>
std::string config_error(F f) {
  try {
    f();
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_CONFIG);
    return e.what();
  }
  return "";
}

// Both names unset for the test, whatever the ambient environment holds.
struct QueuesEnv {
  joule_test::scoped_env now{"JOULE_QUEUES", std::nullopt};
  joule_test::scoped_env old{"JOULE_SCHEDULER", std::nullopt};
};

TEST(ConfigAlias, AnAliasNamesItsKey) {
  const auto* k = find_config_key("JOULE_SCHEDULER");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name, "JOULE_QUEUES");
  EXPECT_EQ(find_config_key("JOULE_QUEUES"), k);
  EXPECT_EQ(find_config_key("JOULE_NO_SUCH_KEY"), nullptr);
}

// An alias is no key's name and no other key's alias, and it is spelled
// like the keys are (so the environment filter passes it).
TEST(ConfigAlias, AliasesAreUniqueAndPrefixed) {
  std::set<std::string> names;
  for (const auto& k : config_keys()) names.insert(k.name);
  std::set<std::string> seen;
  for (const auto& k : config_keys())
    for (const auto& a : k.aliases) {
      EXPECT_EQ(a.rfind("JOULE_", 0), 0u) << a;
      EXPECT_FALSE(names.count(a)) << a << " is also a key";
      EXPECT_TRUE(seen.insert(a).second) << a << " names two keys";
    }
}

TEST(ConfigAlias, SetThroughAnAliasAndDumpedUnderTheNewName) {
  Config c;
  c.set("JOULE_SCHEDULER", "lifo");
  EXPECT_EQ(c.get<QueueSettings>().policy, "lifo");
  const std::string dump = c.dump_text();
  EXPECT_NE(dump.find("JOULE_QUEUES=lifo"), std::string::npos) << dump;
  EXPECT_EQ(dump.find("JOULE_SCHEDULER"), std::string::npos) << dump;
}

// A bad value given under the old name is reported under the name typed.
TEST(ConfigAlias, ABadValueNamesTheAliasTyped) {
  Config c;
  const std::string m = config_error([&] { c.set("JOULE_SCHEDULER", "random"); });
  EXPECT_NE(m.find("JOULE_SCHEDULER=random"), std::string::npos) << m;
  EXPECT_NE(m.find("work-stealing"), std::string::npos) << m;
}

TEST(ConfigAlias, TheUnknownKeyErrorListsTheOldNames) {
  Config c;
  const std::string m = config_error([&] { c.set("JOULE_SCHEDULR", "lifo"); });
  EXPECT_NE(m.find("JOULE_QUEUES"), std::string::npos) << m;
  EXPECT_NE(m.find("JOULE_SCHEDULER for JOULE_QUEUES"), std::string::npos) << m;
}

TEST(ConfigAlias, FromTheEnvironment) {
  const QueuesEnv clear;
  joule_test::scoped_env old("JOULE_SCHEDULER", "fifo");
  EXPECT_EQ(Config::load({}).get<QueueSettings>().policy, "fifo");
  // Both names, the same value: nothing to choose between.
  joule_test::scoped_env now("JOULE_QUEUES", "fifo");
  EXPECT_EQ(Config::load({}).get<QueueSettings>().policy, "fifo");
}

TEST(ConfigAlias, BothNamesInTheEnvironmentWithDifferentValuesAreAnError) {
  const QueuesEnv clear;
  joule_test::scoped_env old("JOULE_SCHEDULER", "fifo");
  joule_test::scoped_env now("JOULE_QUEUES", "lifo");
  const std::string m = config_error([] { Config::load({}); });
  EXPECT_NE(m.find("JOULE_SCHEDULER=fifo"), std::string::npos) << m;
  EXPECT_NE(m.find("JOULE_QUEUES=lifo"), std::string::npos) << m;
  EXPECT_NE(m.find("set only JOULE_QUEUES"), std::string::npos) << m;
}

TEST(ConfigAlias, FromTheFile) {
  const QueuesEnv clear;
  const joule_test::temp_file f("JOULE_SCHEDULER=lifo\n");
  EXPECT_EQ(Config::load({{"JOULE_CONFIG_FILE", f.path()}}).get<QueueSettings>().policy, "lifo");
}

TEST(ConfigAlias, BothNamesInTheFileWithDifferentValuesAreAnError) {
  const QueuesEnv clear;
  const joule_test::temp_file f("JOULE_QUEUES=fifo\n# old\nJOULE_SCHEDULER=lifo\n");
  const std::string m = config_error([&] { Config::load({{"JOULE_CONFIG_FILE", f.path()}}); });
  EXPECT_NE(m.find(f.path() + ":1: JOULE_QUEUES=fifo"), std::string::npos) << m;
  EXPECT_NE(m.find(f.path() + ":3: JOULE_SCHEDULER=lifo"), std::string::npos) << m;
}

TEST(ConfigAlias, BothNamesInTheOverridesWithDifferentValuesAreAnError) {
  const QueuesEnv clear;
  const std::string m = config_error([] {
    Config::load({{"JOULE_SCHEDULER", "fifo"}, {"JOULE_QUEUES", "lifo"}});
  });
  EXPECT_NE(m.find("JOULE_SCHEDULER=fifo"), std::string::npos) << m;
  EXPECT_NE(m.find("JOULE_QUEUES=lifo"), std::string::npos) << m;
}

// Across sources the later one wins, as for any key: an old name in the
// environment does not block a new name in the overrides.
TEST(ConfigAlias, ALaterSourceWinsOverAnAliasInAnEarlierOne) {
  const QueuesEnv clear;
  joule_test::scoped_env old("JOULE_SCHEDULER", "fifo");
  EXPECT_EQ(Config::load({{"JOULE_QUEUES", "lifo"}}).get<QueueSettings>().policy, "lifo");
  const joule_test::temp_file f("JOULE_QUEUES=lifo\n");
  EXPECT_EQ(Config::load({{"JOULE_CONFIG_FILE", f.path()}}).get<QueueSettings>().policy, "fifo");
}

}  // namespace
