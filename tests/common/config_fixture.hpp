// Shared by the configuration tests: the documented keys, the process CPU
// mask as found at start-up, a small workload, and a fixture that hides the
// ambient JOULE_* environment from each test.
#pragma once

#include "test_support.hpp"

#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <map>
#include <string>
#include <vector>

extern char** environ;

namespace joule_test {

inline const std::vector<std::string> kKeys = {
    "JOULE_CPUS",       "JOULE_WORKERS", "JOULE_QUEUES",         "JOULE_IMMEDIATE_SUCCESSOR",
    "JOULE_BIND",       "JOULE_SPIN_US", "JOULE_THROTTLE_TASKS", "JOULE_CONFIG_DUMP",
    "JOULE_CONFIG_FILE"};

inline std::vector<int> read_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// The process mask as it was before any runtime ran (read during static
// initialisation: a runtime binds the thread that starts it).
inline const std::vector<int> g_initial_cpus = read_affinity();
inline const std::vector<int>& allowed_cpus() { return g_initial_cpus; }

inline std::string cpu_list(const std::vector<int>& cpus) {
  std::string s;
  for (int c : cpus) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

// A few tasks with dependencies, nesting and a taskloop; true when correct.
inline bool run_a_few_tasks() {
  long x = 0;
  std::atomic<long> sum{0};
  for (int i = 0; i < 20; ++i) joule::spawn({joule::inout(x)}, [&x] { ++x; });
  joule::spawn({joule::inout(x)}, [&x] { joule::spawn({joule::inout(x)}, [&x] { x *= 2; }); });
  joule::taskloop(0, 100, 10, [&](int i) { sum.fetch_add(i); });
  joule::taskwait();
  return x == 40 && sum.load() == 4950;
}

// Clears every JOULE_* variable for the test and restores them afterwards,
// so the ambient environment cannot change the outcome.
class config_fixture : public testing::Test {
 protected:
  void SetUp() override {
    for (char** e = environ; *e; ++e) {
      const std::string entry = *e;
      if (entry.rfind("JOULE_", 0) != 0) continue;
      const auto eq = entry.find('=');
      saved_[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    for (const auto& kv : saved_) ::unsetenv(kv.first.c_str());
  }
  void TearDown() override {
    for (const auto& k : kKeys) ::unsetenv(k.c_str());
    for (const auto& kv : saved_) ::setenv(kv.first.c_str(), kv.second.c_str(), 1);
  }

  // Starts a runtime with one setting and expects a configuration error
  // whose message names the key (unless name_key is false: errors inside a
  // config file name the file and line instead); returns the message.
  static std::string start_error(const std::string& key, const std::string& value,
                                 bool name_key = true) {
    try {
      joule::runtime rt({{key, value}});
    } catch (const joule::error& e) {
      EXPECT_EQ(e.code(), JOULE_ERR_CONFIG) << e.what();
      if (name_key) {
        EXPECT_NE(std::string(e.what()).find(key), std::string::npos)
            << "message does not name " << key << ": " << e.what();
      }
      return e.what();
    }
    ADD_FAILURE() << key << "=" << value << " was accepted";
    return {};
  }

  std::map<std::string, std::string> saved_;
};

}  // namespace joule_test
