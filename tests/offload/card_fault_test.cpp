// Bad input and faults of the offload runtime: unknown affinity or card,
// more threads than the card has, copies that overflow, a card task that
// throws, and the card process dying under running tasks (docs/offload.md).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>
#include <joule/offload.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace {

using Settings = std::initializer_list<std::pair<std::string, std::string>>;

std::string start_error(Settings s) {
  try {
    joule::runtime rt(s);
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_CONFIG);
    return e.what();
  }
  return "";
}

std::string taskwait_error() {
  try {
    joule::taskwait();
  } catch (const joule::error& e) {
    return e.what();
  }
  return "";
}

joule::runtime card_runtime(const char* staging_mb = "64") {
  return joule::runtime{{"JOULE_CARD", "emulated"},
                        {"JOULE_CARD_TOPOLOGY", "package:1 core:4 pu:2"},
                        {"JOULE_CARD_STAGING_MB", staging_mb},
                        {"JOULE_WORKERS", "2"}};
}

TEST(CardFault, UnknownCardAffinityOrTopology) {
  EXPECT_NE(start_error({{"JOULE_CARD", "gpu"}}).find("none, emulated"), std::string::npos);
  const std::string a =
      start_error({{"JOULE_CARD", "emulated"}, {"JOULE_CARD_AFFINITY", "spread"}});
  EXPECT_NE(a.find("compact, scatter, balanced"), std::string::npos) << a;
  const std::string t = start_error({{"JOULE_CARD_TOPOLOGY", "package:1 cores:4"}});
  EXPECT_NE(t.find("JOULE_CARD_TOPOLOGY"), std::string::npos) << t;
}

TEST(CardFault, MoreThreadsThanTheCardHas) {
  const std::string e = start_error({{"JOULE_CARD", "emulated"},
                                     {"JOULE_CARD_TOPOLOGY", "package:1 core:4 pu:2"},
                                     {"JOULE_CARD_THREADS", "9"}});
  EXPECT_NE(e.find("JOULE_CARD_THREADS=9: the card (package:1 core:4 pu:2) has 8 PUs"),
            std::string::npos)
      << e;
}

TEST(CardFault, BadPowerModelOrHostCpus) {
  const std::string p = start_error({{"JOULE_CARD_POWER", "90,1.2"}});
  EXPECT_NE(p.find("idle,core,thread in watts"), std::string::npos) << p;
  const std::string c = start_error({{"JOULE_CARD", "emulated"},
                                     {"JOULE_CARD_TOPOLOGY", "package:1 core:2 pu:2"},
                                     {"JOULE_CARD_CPUS", "4095"}});
  EXPECT_NE(c.find("JOULE_CARD_CPUS=4095: CPU 4095 is not in the process affinity mask"),
            std::string::npos)
      << c;
}

TEST(CardFault, NoCardConfigured) {
  joule::runtime rt{{"JOULE_CARD", "none"}, {"JOULE_WORKERS", "2"}};
  int x = 0;
  int* p = &x;
  joule::spawn(
      {joule::inout(*p)}, [=](joule::card_context& c) { *c.map(p) = 1; }, joule::device_options{});
  EXPECT_NE(taskwait_error().find("no card (set JOULE_CARD=emulated)"), std::string::npos);
  EXPECT_EQ(x, 0);
}

TEST(CardFault, UnknownDevice) {
  auto rt = card_runtime();
  int x = 0;
  int* p = &x;
  joule::spawn(
      {joule::inout(*p)}, [=](joule::card_context& c) { *c.map(p) = 1; },
      joule::device_options{.device = static_cast<joule::device>(7)});
  EXPECT_NE(taskwait_error().find("unknown device 7 (allowed: host, mic, cuda)"),
            std::string::npos);
}

TEST(CardFault, CopyRegionsThatOverflow) {
  auto rt = card_runtime("1");
  std::vector<char> big(2 << 20);
  char* p = big.data();
  joule::spawn(
      {joule::in(p, big.size())}, [=](joule::card_context&) {}, joule::device_options{});
  EXPECT_NE(taskwait_error().find("overflow the card's staging area of 1048576 bytes"),
            std::string::npos);
  const auto* end = reinterpret_cast<const char*>(UINTPTR_MAX - 15);
  joule::spawn(
      {}, [=](joule::card_context&) {},
      joule::device_options{.copies = {{joule::copy_dir::in, end, 64}}});
  EXPECT_NE(taskwait_error().find("overflows the address space"), std::string::npos);
  // Inside the address space, but rounding it up to the staging granule
  // (64 bytes) wraps to 0: only a region starting in the first bytes can.
  const auto* low = reinterpret_cast<const char*>(16);
  const std::size_t huge = UINTPTR_MAX - 16 - 4;
  joule::spawn(
      {}, [=](joule::card_context&) {},
      joule::device_options{.copies = {{joule::copy_dir::in, low, huge}}});
  EXPECT_NE(taskwait_error().find("overflow the card's staging area"), std::string::npos);
  int x = 0;
  int* px = &x;
  joule::spawn(
      {joule::out(*px)}, [=](joule::card_context& c) { *c.map(px + 1) = 1; },
      joule::device_options{});
  EXPECT_NE(taskwait_error().find("is in none of the task's copied regions"), std::string::npos);
}

TEST(CardFault, CardTaskExceptionReachesTaskwait) {
  auto rt = card_runtime();
  int x = 0;
  int* p = &x;
  joule::spawn(
      {joule::inout(*p)},
      [=](joule::card_context&) { throw std::runtime_error("kernel failed on purpose"); },
      joule::device_options{});
  EXPECT_NE(taskwait_error().find("kernel failed on purpose"), std::string::npos);
}

TEST(CardFault, CardProcessDiesHostCarriesOn) {
  auto rt = card_runtime();
  const long pid = joule::card_status().pid;
  ASSERT_GT(pid, 0);
  std::vector<int> v(100, 1);
  int* p = v.data();
  for (int k = 0; k < 4; ++k)  // long enough to be running when the card is killed
    joule::spawn(
        {joule::inout(p[k * 25])},
        [=](joule::card_context& c) {
          *c.map(p + k * 25) = 7;
          std::this_thread::sleep_for(std::chrono::seconds(20));
        },
        joule::device_options{});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(kill(pid_t(pid), SIGKILL), 0);
  const std::string e = taskwait_error();
  EXPECT_NE(e.find("card process (pid " + std::to_string(pid) + ") died (killed by signal 9)"),
            std::string::npos)
      << e;
  EXPECT_EQ(v[0], 1);  // nothing came back
  EXPECT_FALSE(joule::card_status().alive);
  // The host runs on; a later card task fails at once with the same error.
  int h = 0;
  joule::spawn({joule::out(h)}, [&h] { h = 5; });
  joule::taskwait();
  EXPECT_EQ(h, 5);
  joule::spawn(
      {joule::inout(*p)}, [=](joule::card_context& c) { *c.map(p) = 2; }, joule::device_options{});
  EXPECT_NE(taskwait_error().find("died"), std::string::npos);
}

TEST(CardFault, NextRuntimeStartsAFreshCard) {
  auto rt = card_runtime();  // after the crash above, or first: a live card either way
  EXPECT_TRUE(joule::card_status().alive);
  int x = 1;
  int* p = &x;
  joule::spawn(
      {joule::inout(*p)}, [=](joule::card_context& c) { *c.map(p) += 1; }, joule::device_options{});
  joule::taskwait();
  EXPECT_EQ(x, 2);
}

}  // namespace
