// Config parsing helpers and the key table.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "config.hpp"
#include "engine_settings.hpp"
#include "joule/joule.hpp"
#include "queue_settings.hpp"
#include "temp_dir.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

TEST(ConfigParse, Booleans) {
  for (const char* v : {"1", "true", "YES", "on"}) EXPECT_TRUE(parse_bool(v)) << v;
  for (const char* v : {"0", "false", "No", "OFF"}) EXPECT_FALSE(parse_bool(v)) << v;
  EXPECT_THROW(parse_bool("maybe"), std::invalid_argument);
  EXPECT_THROW(parse_bool(""), std::invalid_argument);
}

TEST(ConfigParse, IntegersWithRange) {
  EXPECT_EQ(parse_int("42", 0, 100), 42);
  EXPECT_EQ(parse_int(" 7 ", 0, 100), 7);
  EXPECT_THROW(parse_int("101", 0, 100), std::invalid_argument);
  EXPECT_THROW(parse_int("-1", 0, 100), std::invalid_argument);
  EXPECT_THROW(parse_int("4x", 0, 100), std::invalid_argument);
  EXPECT_THROW(parse_int("", 0, 100), std::invalid_argument);
}

TEST(ConfigParse, CpuListsRoundTrip) {
  EXPECT_EQ(parse_cpu_list("0-3,6"), (std::vector<int>{0, 1, 2, 3, 6}));
  EXPECT_EQ(parse_cpu_list("5,1,1"), (std::vector<int>{1, 5}));
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
  EXPECT_THROW(parse_cpu_list("3-1"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("a"), std::invalid_argument);
}

TEST(ConfigTable, KeysAreUniqueAndPrefixed) {
  std::set<std::string> names;
  for (const auto& k : config_keys()) {
    // JOULE_*, or the standard OMP_* (and GCC's GOMP_*) variables the
    // OpenMP layer reads, Slurm's SLURM_JOB_ID (the platform's, for jouled)
    // or DLB's DLB_ARGS (the lending layer's, for programs written to DLB).
    const std::string name(k.name);
    EXPECT_TRUE(name.rfind("JOULE_", 0) == 0 || name.rfind("OMP_", 0) == 0 ||
                name.rfind("GOMP_", 0) == 0 || name == "SLURM_JOB_ID" || name == "DLB_ARGS")
        << k.name;
    EXPECT_TRUE(names.insert(k.name).second) << k.name;
    EXPECT_FALSE(k.allowed().empty()) << k.name;
  }
}

// Every key is declared with a kind and a help text (the generated
// docs/configuration.md shows both), and its printed default parses back
// to the same value: the table can both read and print every setting.
TEST(ConfigTable, EveryKeyHasAKindAHelpAndARoundTrippingDefault) {
  const std::set<std::string> kinds = {"boolean", "integer", "number", "choice",
                                       "list",    "text",    "path"};
  const Config defaults;
  for (const auto& k : config_keys()) {
    EXPECT_TRUE(kinds.count(k.type)) << k.name << ": kind '" << k.type << "'";
    EXPECT_FALSE(k.help.empty()) << k.name;
    Config c;
    const std::string printed = k.get(defaults);
    if (k.name == "JOULE_LENDING_SHM") continue;  // prints the per-user default name it stands for
    EXPECT_NO_THROW(k.set(c, printed)) << k.name << "=" << printed;
    EXPECT_EQ(k.get(c), printed) << k.name;
  }
}

// Settings structs are found by type: a copy of a Config carries copies
// of every section, not shared ones.
TEST(ConfigTable, CopiesCarryTheirOwnSections) {
  Config a;
  a.set("JOULE_WORKERS", "3");
  Config b = a;
  b.set("JOULE_WORKERS", "5");
  EXPECT_EQ(a.get<EngineSettings>().workers, 3);
  EXPECT_EQ(b.get<EngineSettings>().workers, 5);
  const Config empty;
  EXPECT_EQ(empty.get<EngineSettings>().workers, 0);  // defaults without a stored section
}

TEST(ConfigTable, EveryKeyRoundTripsThroughTheDump) {
  Config c;
  c.set("JOULE_WORKERS", "3");
  c.set("JOULE_QUEUES", "lifo");
  c.set("JOULE_CPUS", "0");
  const std::string dump = c.dump_text();
  EXPECT_NE(dump.find("JOULE_WORKERS=3"), std::string::npos);
  EXPECT_NE(dump.find("JOULE_QUEUES=lifo"), std::string::npos);
  EXPECT_NE(dump.find("JOULE_CPUS=0"), std::string::npos);
  for (const auto& k : config_keys()) EXPECT_NE(dump.find(k.name), std::string::npos) << k.name;
}

TEST(ConfigErrors, BadValueNamesKeyAndAllowedValues) {
  Config c;
  try {
    c.set("JOULE_QUEUES", "random");
    FAIL() << "no error";
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_CONFIG);
    const std::string m = e.what();
    EXPECT_NE(m.find("JOULE_QUEUES=random"), std::string::npos) << m;
    EXPECT_NE(m.find("work-stealing"), std::string::npos) << m;
    EXPECT_NE(m.find("priority"), std::string::npos) << m;
  }
}

TEST(ConfigErrors, UnknownKeyListsValidKeys) {
  Config c;
  try {
    c.set("JOULE_WROKERS", "2");
    FAIL() << "no error";
  } catch (const joule::error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("JOULE_WROKERS"), std::string::npos) << m;
    EXPECT_NE(m.find("JOULE_WORKERS"), std::string::npos) << m;
  }
}

TEST(ConfigFile, ValuesApplyAndErrorsCarryFileAndLine) {
  const joule_test::TempDir dir;
  const std::string path = dir.file("joule_config_test.conf");
  {
    std::ofstream f(path);
    f << "# comment\nJOULE_WORKERS = 3\n\nJOULE_QUEUES=fifo\n";
  }
  Config c = Config::load({{"JOULE_CONFIG_FILE", path}});
  EXPECT_EQ(c.get<joule::engine::EngineSettings>().workers, 3);
  EXPECT_EQ(c.get<joule::queues::QueueSettings>().policy, "fifo");
  {
    std::ofstream f(path);
    f << "JOULE_WORKERS=2\nthis line is wrong\n";
  }
  try {
    Config::load({{"JOULE_CONFIG_FILE", path}});
    FAIL() << "no error";
  } catch (const joule::error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2:"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(ConfigFile, OverridesWinOverTheFile) {
  const joule_test::TempDir dir;
  const std::string path = dir.file("joule_config_test2.conf");
  {
    std::ofstream f(path);
    f << "JOULE_WORKERS=3\n";
  }
  Config c = Config::load({{"JOULE_CONFIG_FILE", path}, {"JOULE_WORKERS", "1"}});
  EXPECT_EQ(c.get<joule::engine::EngineSettings>().workers, 1);
  std::remove(path.c_str());
}

TEST(ConfigParse, TooLongAnIntegerIsOutOfRange) {
  try {
    parse_int("99999999999999999999", 0, 4096);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "out of range");
  }
  Config c;
  try {
    c.set("JOULE_WORKERS", "99999999999999999999");
    FAIL() << "accepted";
  } catch (const joule::error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("out of range; allowed values: an integer 0..4096"), std::string::npos) << m;
  }
}

TEST(ConfigFile, ADirectoryIsRefused) {
  const joule_test::TempDir dir;
  try {
    Config::load({{"JOULE_CONFIG_FILE", dir.path()}});
    FAIL() << "a directory was read as an empty file";
  } catch (const joule::error& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

TEST(ConfigErrors, ControlBytesOfAValueAreEscaped) {
  Config c;
  try {
    c.set("JOULE_QUEUES", "x\x1b[2J\xff");
    FAIL() << "no error";
  } catch (const joule::error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("JOULE_QUEUES=x\\x1b[2J\\xff"), std::string::npos) << m;
    EXPECT_EQ(m.find('\x1b'), std::string::npos) << m;
  }
  EXPECT_EQ(escape_text(std::string(300, 'a')).size(), 200 + std::string("... (300 bytes)").size());
}

TEST(ConfigParse, SyntheticPuCount) {
  EXPECT_EQ(synthetic_pu_count("package:2 core:4 pu:2", 65536), 16u);
  EXPECT_EQ(synthetic_pu_count("pack:2 numa:2(memory=1GB) core:8 pu:2", 65536), 64u);
  EXPECT_EQ(synthetic_pu_count("l3:2 core:3", 65536), 6u);
  EXPECT_EQ(synthetic_pu_count("package:1000000 core:1000000 pu:1000000", 65536), 65537u);
}

// A synthetic machine of 10^18 PUs used to spin in hwloc; the product of the
// levels is bounded before hwloc sees it.
TEST(ConfigErrors, HugeSyntheticTopologiesAreRefused) {
  for (const char* key : {"JOULE_TOPOLOGY", "JOULE_WORKER_TOPOLOGY"}) {
    Config c;
    try {
      c.set(key, "package:1000000 core:1000000 pu:1000000");
      ADD_FAILURE() << key << " accepted";
    } catch (const joule::error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(std::string(key) + "="), std::string::npos) << m;
      EXPECT_NE(m.find("more than 65536 PUs"), std::string::npos) << m;
      EXPECT_NE(m.find("at most 65536 PUs"), std::string::npos) << m;
    }
    c.set(key, "package:2 core:2 pu:1");
  }
}

// JOULE_TRACE_DIR: an existing directory, or one new folder in one; a
// missing parent is an error instead of a tree made in silence.
TEST(ConfigErrors, TraceDirNeedsAnExistingParent) {
  const joule_test::TempDir dir;
  Config c;
  c.set("JOULE_TRACE_DIR", dir.path());
  c.set("JOULE_TRACE_DIR", dir.path() + "/new");
  c.set("JOULE_TRACE_DIR", dir.path() + "/new/");
  try {
    c.set("JOULE_TRACE_DIR", dir.path() + "/missing/sub");
    FAIL() << "accepted";
  } catch (const joule::error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("is not an existing directory"), std::string::npos) << m;
  }
  std::ofstream(dir.file("plain")) << "x";
  EXPECT_THROW(c.set("JOULE_TRACE_DIR", dir.file("plain")), joule::error);
}

}  // namespace
}  // namespace joule::engine
