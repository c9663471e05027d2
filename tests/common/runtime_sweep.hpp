// Value-parameterised sweeps over runtime configurations: worker counts 1, 2
// and 4 (more workers than the 2 CPUs of a small machine), the four ready-queue
// policies, and immediate successor on/off.
#pragma once

#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace joule_test {

struct sweep_config {
  int workers = 2;
  std::string scheduler = "work-stealing";
  bool immediate_successor = true;
  // One worker only: tasks run inline at submit (JOULE_SERIAL_INLINE). Off
  // elsewhere, so one-worker configurations exercise the deferred path.
  bool serial_inline = false;
};

using setting = std::pair<std::string, std::string>;

// Starts a runtime for c; extra settings (at most two) are appended.
inline std::unique_ptr<joule::runtime> start_runtime(const sweep_config& c,
                                                     std::vector<setting> extra = {}) {
  const setting w{"JOULE_WORKERS", std::to_string(c.workers)};
  const setting s{"JOULE_QUEUES", c.scheduler};
  const setting is{"JOULE_IMMEDIATE_SUCCESSOR", c.immediate_successor ? "1" : "0"};
  const setting si{"JOULE_SERIAL_INLINE", c.serial_inline ? "1" : "0"};
  // joule::runtime takes an initializer_list, so the shapes are spelled out.
  switch (extra.size()) {
    case 0:
      return std::make_unique<joule::runtime>(std::initializer_list<setting>{w, s, is, si});
    case 1:
      return std::make_unique<joule::runtime>(
          std::initializer_list<setting>{w, s, is, si, extra[0]});
    default:
      return std::make_unique<joule::runtime>(
          std::initializer_list<setting>{w, s, is, si, extra[0], extra[1]});
  }
}

// `workers` workers as the Nanos6 and ALPI suites sweep them: the serial
// inline mode on at one worker, so the first Nanos6 or ALPI call must end it.
inline std::unique_ptr<joule::runtime> start_serial_at_one(int workers) {
  sweep_config c;
  c.workers = workers;
  c.serial_inline = workers == 1;
  return start_runtime(c);
}

inline std::string short_scheduler(const std::string& s) { return s == "work-stealing" ? "ws" : s; }

// Names like ws_2workers, fifo_1workers_nois (immediate successor off).
inline std::string config_name(const sweep_config& c) {
  std::string n = short_scheduler(c.scheduler) + "_" + std::to_string(c.workers) + "workers";
  if (!c.immediate_successor) n += "_nois";
  if (c.serial_inline) n += "_inline";
  return n;
}

// Readable parameter in failure messages.
inline void PrintTo(const sweep_config& c, std::ostream* os) { *os << config_name(c); }

struct config_namer {
  std::string operator()(const testing::TestParamInfo<sweep_config>& info) const {
    return config_name(info.param);
  }
};

inline const std::vector<std::string>& all_schedulers() {
  static const std::vector<std::string> s{"fifo", "lifo", "work-stealing", "priority", "locality"};
  return s;
}

// workers x schedulers, immediate successor on (12 configurations).
inline std::vector<sweep_config> scheduler_sweep() {
  std::vector<sweep_config> v;
  for (int w : {1, 2, 4})
    for (const auto& s : all_schedulers()) v.push_back({w, s, true});
  return v;
}

// workers x schedulers x immediate successor on/off (24 configurations), plus
// one worker running tasks inline: for the dependency tests, where the
// successor hand-off matters.
inline std::vector<sweep_config> full_sweep() {
  std::vector<sweep_config> v;
  for (int w : {1, 2, 4})
    for (const auto& s : all_schedulers())
      for (bool is : {true, false}) v.push_back({w, s, is});
  v.push_back({1, "work-stealing", true, true});  // one worker running tasks inline
  return v;
}

// workers only, default scheduler (3 configurations): for the costly tests.
inline std::vector<sweep_config> worker_sweep() {
  return {{1, "work-stealing", true}, {2, "work-stealing", true}, {4, "work-stealing", true}};
}

// A fixture that starts the runtime of its parameter around each test.
class sweep_test : public testing::TestWithParam<sweep_config> {
 protected:
  void SetUp() override { rt_ = start_runtime(GetParam()); }
  void TearDown() override { rt_.reset(); }
  int workers() const { return GetParam().workers; }

  std::unique_ptr<joule::runtime> rt_;
};

}  // namespace joule_test
