// PAPI on this VM: only the perf_event software event perf::TASK-CLOCK
// counts. Per-task counters per label, one warning for missing events, and
// the PAPI meter falling back to modelled power over measured CPU time.
#include <gtest/gtest.h>

#include <algorithm>

#include "joule/joule.hpp"
#include "log.hpp"
#include "papi.hpp"
#include "platform.hpp"

namespace joule::platform {
namespace {

void busy(long n) {
  volatile double x = 1;
  for (long i = 0; i < n; ++i) x = x * 1.0000001 + 1e-9;
}

void skip_without_papi() {
  std::string why;
  if (!papi_init(&why)) GTEST_SKIP() << "PAPI cannot initialise here: " << why;
  PapiEventSet probe;
  if (!probe.open({"perf::TASK-CLOCK"}, nullptr, &why))
    GTEST_SKIP() << "perf::TASK-CLOCK unavailable: " << why;
}

TEST(Papi, TaskClockPerLabel) {
  skip_without_papi();
  if (IsSkipped()) return;
  joule::runtime rt({{"JOULE_COUNTERS", "papi"},
                     {"JOULE_COUNTER_EVENTS", "perf::TASK-CLOCK"},
                     {"JOULE_WORKERS", "2"}});
  Platform* p = current_platform();
  ASSERT_NE(p, nullptr);
  for (int i = 0; i < 40; ++i)
    joule::spawn([] { busy(200000); }, joule::task_options{.label = "papi-a"});
  for (int i = 0; i < 10; ++i)
    joule::spawn([] { busy(200000); }, joule::task_options{.label = "papi-b"});
  joule::taskwait();  // every task ended: the per-worker tables are complete
  ASSERT_EQ(p->counters().names(), (std::vector<std::string>{"perf::TASK-CLOCK"}));
  const auto stats = p->workers().label_stats();
  auto find = [&](const char* l) {
    return std::find_if(stats.begin(), stats.end(), [&](auto& s) { return s.label == l; });
  };
  ASSERT_NE(find("papi-a"), stats.end());
  ASSERT_NE(find("papi-b"), stats.end());
  const auto& a = *find("papi-a");
  EXPECT_EQ(a.tasks, 40u);
  ASSERT_EQ(a.counters.size(), 1u);
  // TASK-CLOCK is CPU time in ns: positive, and no more than the wall time
  // (much less when the VM is shared, so no lower bound).
  EXPECT_GT(a.counters[0], 0);
  EXPECT_LE(double(a.counters[0]), double(a.ns) * 1.05 + 1e6);
  EXPECT_EQ(find("papi-b")->tasks, 10u);
}

TEST(Papi, MissingEventsGiveOneWarningAndNoFailure) {
  skip_without_papi();
  if (IsSkipped()) return;
  core::reset_warn_once();
  testing::internal::CaptureStderr();
  {
    joule::runtime rt({{"JOULE_COUNTERS", "papi"},
                       {"JOULE_WORKERS", "2"},
                       {"JOULE_COUNTER_EVENTS", "PAPI_TOT_CYC,NO_SUCH_EVENT,perf::TASK-CLOCK"}});
    for (int i = 0; i < 10; ++i) joule::spawn([] { busy(1000); });
    joule::taskwait();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  const auto first = err.find("joule: warning");
  EXPECT_NE(err.find("NO_SUCH_EVENT"), std::string::npos) << err;
  EXPECT_EQ(err.find("joule: warning", first + 1), std::string::npos) << err;
}

TEST(Papi, NoEventAtAllIsOneWarningToo) {
  core::reset_warn_once();
  testing::internal::CaptureStderr();
  {
    joule::runtime rt({{"JOULE_COUNTERS", "papi"},
                       {"JOULE_COUNTER_EVENTS", "NO_SUCH_EVENT"},
                       {"JOULE_WORKERS", "2"},
                       {"JOULE_REPORT", "1"}});
    for (int i = 0; i < 10; ++i)
      joule::spawn([] { busy(1000); }, joule::task_options{.label = "x"});
    joule::taskwait();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  const auto first = err.find("joule: warning");
  EXPECT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("joule: warning", first + 1), std::string::npos) << err;
  EXPECT_NE(err.find("counters unavailable"), std::string::npos) << err;
}

TEST(Papi, MeterWithOnlySoftwareEventsModelsMeasuredCpuTime) {
  skip_without_papi();
  if (IsSkipped()) return;
  joule::runtime rt({{"JOULE_METER", "papi"}, {"JOULE_WORKERS", "1"}});
  Platform* p = current_platform();
  ASSERT_NE(p, nullptr);
  const auto e = p->sensors().read_energy();
  if (e.chips_measured) GTEST_SKIP() << "this machine has PAPI energy events";
  EXPECT_EQ(e.source, "model (perf::TASK-CLOCK)");
}

}  // namespace
}  // namespace joule::platform
