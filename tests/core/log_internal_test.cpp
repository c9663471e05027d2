// The core logger: the "joule: " prefix, once-only warnings, the level
// threshold, and whole lines when threads log at the same time.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "log.hpp"

namespace joule::core {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Log, EveryLineHasThePrefix) {
  testing::internal::CaptureStderr();
  log_error("DLB: bad mask");
  log_warn("trace not written: disk full");
  log_info("platform: off");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err,
            "joule: DLB: bad mask\n"
            "joule: warning: trace not written: disk full\n"
            "joule: platform: off\n");
}

TEST(Log, WarnOncePrintsOneLinePerKey) {
  reset_warn_once();
  testing::internal::CaptureStderr();
  EXPECT_TRUE(warn_once("k1", "first"));
  EXPECT_FALSE(warn_once("k1", "second"));
  EXPECT_TRUE(warn_once("k2", "other key"));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "joule: warning: first\njoule: warning: other key\n");
  reset_warn_once();
}

TEST(Log, WarnOnceIsOnceAcrossThreads) {
  reset_warn_once();
  testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 100; ++i) warn_once("shared", "only once");
    });
  for (auto& th : threads) th.join();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "joule: warning: only once\n");
  reset_warn_once();
}

TEST(Log, ThresholdDropsLowerLevels) {
  const LogLevel saved = log_level();
  EXPECT_EQ(saved, LogLevel::info);
  testing::internal::CaptureStderr();
  log_debug("hidden by default");
  set_log_level(LogLevel::debug);
  log_debug("shown");
  set_log_level(LogLevel::error);
  log_warn("hidden");
  log_info("hidden");
  log_error("still shown");
  set_log_level(saved);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "joule: debug: shown\njoule: still shown\n");
}

TEST(Log, ThreadsNeverSplitALine) {
  testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      const std::string msg = "thread " + std::to_string(t) + " " + std::string(200, char('a' + t));
      for (int i = 0; i < 50; ++i) log_info(msg);
    });
  for (auto& th : threads) th.join();
  const std::string err = testing::internal::GetCapturedStderr();
  std::istringstream lines(err);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    ASSERT_EQ(line.rfind("joule: thread ", 0), 0u) << line;
    const char c = line.back();
    EXPECT_EQ(line.find_first_not_of(c, line.size() - 200), std::string::npos) << line;
  }
  EXPECT_EQ(n, 200);
  EXPECT_EQ(count(err, "joule: "), 200u);
}

}  // namespace
}  // namespace joule::core
