// The jouled client side of the platform layer: its settings, auto without
// a service, and the service DVFS backend and meter against a scripted
// server (faults a real jouled does not make on demand). The end-to-end
// runs against jouled are in tests/service.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "config.hpp"
#include "dvfs_service.hpp"
#include "joule/types.hpp"
#include "log.hpp"
#include "meter.hpp"
#include "platform.hpp"
#include "scripted_service.hpp"

namespace joule::platform {
namespace {

using test::ScriptedService;
using Lines = std::vector<std::string>;

// What the code under test writes to stderr while f runs.
template <class F>
std::string stderr_of(F f) {
  joule_test::TempDir dir("err");
  const std::string file = dir.file("stderr");
  std::fflush(stderr);
  const int saved = ::dup(2), fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ::dup2(fd, 2);
  ::close(fd);
  f();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// Two domains as jouled describes them: CPUs 0-1 (the job has both) and
// CPUs 2-3 (the job has 2 only: shared with another job).
void script_node(ScriptedService& s, const std::string& controls = "frequency,energy") {
  s.on("hello", [controls](const auto&) {
    return Lines{"ok version=1 user=u uid=1 controls=" + controls +
                 " cpus=0-2 min_khz=1200000 max_khz=2400000 job=7 job_source=client"};
  });
  s.on("domains", [](const auto&) {
    return Lines{
        "data domain=0 cpus=0-1 mine=0-1 shared=0 pstates=1200000,1800000,2400000 "
        "khz=2400000",
        "data domain=1 cpus=2-3 mine=2 shared=1 pstates=1200000,2400000 khz=1200000", "ok count=2"};
  });
  s.on("set", [](const service_client::Line& l) {
    const std::string k = l.get_or("khz", "0");
    const bool cpu2 = l.get_or("cpu", "") == "2";
    return Lines{"ok domain=0 requested=" + k + " khz=" + k +
                 " effective=" + (cpu2 ? "2400000" : k) + " in_effect=" + (cpu2 ? "0" : "1")};
  });
  s.on("energy", [](const auto&) {
    static double j = 100;
    j += 5;
    return Lines{"data zone=package-0 kind=package chip=0 joules=" + std::to_string(j),
                 "data zone=package-0/dram kind=dram chip=0 joules=" + std::to_string(j / 10),
                 "ok zones=2 shared=1"};
  });
  s.on("release", [](const auto&) { return Lines{"ok energy_j=12.5"}; });
}

TEST(ServiceSettings, KeysParse) {
  core::Config c;
  c.set("JOULE_DVFS", "service");
  c.set("JOULE_METER", "service");
  c.set("JOULE_SERVICE_SOCKET", "/tmp/x.sock");
  c.set("SLURM_JOB_ID", "4242");
  const auto& p = c.get<PlatformSettings>();
  EXPECT_EQ(p.dvfs, DvfsKind::service);
  EXPECT_EQ(p.meter, MeterKind::service);
  EXPECT_EQ(p.service_socket, "/tmp/x.sock");
  EXPECT_EQ(p.slurm_job_id, "4242");
  EXPECT_EQ(service_client::socket_path(core::Config().get<PlatformSettings>().service_socket),
            "/run/joule/jouled.sock");
  for (auto [k, v] : {std::pair{"JOULE_DVFS", "jouled"}, {"SLURM_JOB_ID", "12;rm"}}) {
    try {
      core::Config bad;
      bad.set(k, v);
      ADD_FAILURE() << k << "=" << v << " accepted";
    } catch (const joule::error& e) {
      EXPECT_NE(std::string(e.what()).find(k), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("allowed values"), std::string::npos) << e.what();
    }
  }
}

TEST(ServiceSettings, SlurmJobIdComesFromTheEnvironment) {
  ::setenv("SLURM_JOB_ID", "31337", 1);
  ::setenv("SLURM_SOMETHING_ELSE", "x", 1);  // undeclared SLURM_* are Slurm's, not errors
  auto c = core::Config::load({});
  ::unsetenv("SLURM_JOB_ID");
  ::unsetenv("SLURM_SOMETHING_ELSE");
  EXPECT_EQ(c.get<PlatformSettings>().slurm_job_id, "31337");
}

TEST(ServicePlatform, AutoWithoutSocketIsNoneAndQuick) {
  joule_test::TempDir dir;
  core::Config c;
  c.set("JOULE_SYSFS_ROOT", dir.path());  // no cpufreq, no powercap
  c.set("JOULE_SERVICE_SOCKET", dir.file("absent.sock"));
  EXPECT_FALSE(platform_wanted(c));
  c.set("JOULE_METER", "model");  // the platform on, DVFS still auto
  const auto t0 = std::chrono::steady_clock::now();
  std::string err;
  std::string text;
  err = stderr_of([&] { text = Platform(c).describe(); });
  const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0);
  EXPECT_NE(text.find("dvfs none (auto: no cpufreq under"), std::string::npos) << text;
  EXPECT_NE(text.find("no jouled socket at " + dir.file("absent.sock")), std::string::npos) << text;
  EXPECT_EQ(err, "");
  EXPECT_LT(ms.count(), 1000.0);  // generous: a stat, no connect (hwloc dominates)
}

TEST(ServicePlatform, ExplicitServiceWithoutSocketWarnsOnce) {
  joule_test::TempDir dir;
  core::reset_warn_once();
  core::Config c;
  c.set("JOULE_SYSFS_ROOT", dir.path());
  c.set("JOULE_DVFS", "service");
  c.set("JOULE_METER", "service");
  c.set("JOULE_SERVICE_SOCKET", dir.file("absent.sock"));
  std::string text;
  const std::string err = stderr_of([&] { text = Platform(c).describe(); });
  EXPECT_EQ(count(err, "warning"), 1) << err;
  EXPECT_NE(err.find("no jouled socket at"), std::string::npos) << err;
  EXPECT_NE(text.find("dvfs none (service requested: no jouled socket"), std::string::npos) << text;
  EXPECT_NE(text.find("meter model"), std::string::npos) << text;
}

TEST(ServiceDvfs, DomainsPstatesCapsAndSet) {
  ScriptedService s;
  script_node(s);
  std::string why;
  auto d = make_service_dvfs(s.path(), "99", &why);
  ASSERT_TRUE(d) << why;
  EXPECT_EQ(s.requests().front(), "hello version=1 job=99");
  ASSERT_EQ(d->num_domains(), 2);
  EXPECT_EQ(d->domain_cpus(1), std::vector<int>{2});  // only `mine`
  EXPECT_EQ(d->pstates(0), (std::vector<std::uint32_t>{1200000, 1800000, 2400000}));
  EXPECT_EQ(d->frequency(2), 1200000u);  // the level is what the service said
  EXPECT_EQ(d->caps(), unsigned(kCapSet | kCapReal | kCapPerChip));
  EXPECT_TRUE(d->set_frequency(1, 1700000));
  EXPECT_EQ(s.requests().back(), "set cpu=0 khz=1800000");
  EXPECT_EQ(d->frequency(0), 1800000u);
  EXPECT_EQ(d->domain_note(0), "");
  EXPECT_TRUE(d->set_frequency(2, 2400000));
  EXPECT_EQ(d->domain_note(1),
            "shared with CPUs outside this job; accepted but not in effect: "
            "scaling_cur_freq reads 2400000");
  d->restore();
  EXPECT_EQ(s.requests().back(), "release");
  EXPECT_FALSE(d->set_frequency(0, 1200000));  // the lease is over
}

TEST(ServiceDvfs, RefusedChangeAndNoFrequencyControl) {
  ScriptedService s;
  script_node(s, "energy");
  std::string why;
  EXPECT_FALSE(make_service_dvfs(s.path(), "", &why));
  EXPECT_NE(why.find("grants this user no frequency control"), std::string::npos) << why;
  ScriptedService denied;
  denied.on("hello", [](const auto&) {
    return Lines{"err code=denied message=no%20entry%20for%20user%20u"};
  });
  EXPECT_FALSE(make_service_dvfs(denied.path(), "", &why));
  EXPECT_NE(why.find("refused this user (no entry for user u)"), std::string::npos) << why;
}

TEST(ServiceDvfs, BrokenConnectionFailsOnceAndReconnectsAtMostPerSecond) {
  ScriptedService s;
  script_node(s);
  core::reset_warn_once();
  std::string why;
  auto d = make_service_dvfs(s.path(), "", &why);
  ASSERT_TRUE(d) << why;
  s.drop_after(0);  // the service goes away
  int ok = 0;
  const std::string err = stderr_of([&] {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
    while (std::chrono::steady_clock::now() < end) ok += d->set_frequency(0, 1200000);
  });
  EXPECT_EQ(ok, 0);
  EXPECT_EQ(count(err, "warning"), 1) << err;
  EXPECT_NE(err.find("lost jouled at " + s.path()), std::string::npos) << err;
  EXPECT_LE(s.connections(), 3);  // the first, then at most one per second
  s.drop_after(-1);               // back: the next change after a second reconnects
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_TRUE(d->set_frequency(0, 1200000));
  EXPECT_EQ(s.requests().back(), "set cpu=0 khz=1200000");
}

// A new lease starts from the originals: the same level must be sent again.
TEST(ServiceDvfs, AReconnectSendsTheSameLevelAgain) {
  ScriptedService s;
  script_node(s);
  core::reset_warn_once();
  std::string why;
  auto d = make_service_dvfs(s.path(), "", &why);
  ASSERT_TRUE(d) << why;
  ASSERT_TRUE(d->set_frequency(0, 1200000));
  const auto sets = [&] {
    int n = 0;
    for (const auto& r : s.requests()) n += r == "set cpu=0 khz=1200000";
    return n;
  };
  EXPECT_TRUE(d->set_frequency(0, 1200000));
  EXPECT_EQ(sets(), 1);  // same lease, same level: nothing to send
  s.drop_after(0);
  (void)stderr_of([&] { EXPECT_FALSE(d->set_frequency(0, 1800000)); });
  s.drop_after(-1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_TRUE(d->set_frequency(0, 1200000));
  EXPECT_EQ(sets(), 2) << "the level was not sent on the new lease";
}

TEST(ServiceDvfs, StalledServiceTimesOut) {
  ScriptedService s;
  script_node(s);
  std::string why;
  auto d = make_service_dvfs(s.path(), "", &why);
  ASSERT_TRUE(d) << why;
  s.on("set", [](const auto&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2600));
    return Lines{"ok in_effect=1"};
  });
  const auto t0 = std::chrono::steady_clock::now();
  stderr_of([&] { EXPECT_FALSE(d->set_frequency(0, 1200000)); });
  const double s_taken =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(s_taken, 1.9);
  EXPECT_LT(s_taken, 2.5);
}

TEST(ServiceMeter, BaselineIncreaseAndNodeLevelNote) {
  ScriptedService s;
  script_node(s);
  std::string why;
  auto session = service_client::Session::open(s.path(), "", &why);
  ASSERT_TRUE(session) << why;
  auto m = make_service_meter(session, &why);
  ASSERT_TRUE(m) << why;
  EXPECT_STREQ(m->name(), "service");
  m->start();
  m->sample();
  m->sample();
  const auto t = m->totals();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].name, "package-0");
  EXPECT_EQ(t[0].kind, "package");
  EXPECT_EQ(t[0].chip, 0);
  EXPECT_NEAR(t[0].joules, 10.0, 1e-6);  // two samples of +5 J after the baseline
  EXPECT_NEAR(t[1].joules, 1.0, 1e-6);
  EXPECT_EQ(m->note(), "node-level: other jobs share the packages");
}

TEST(ServicePlatform, AutoUsesTheServiceAndReportsIt) {
  joule_test::TempDir dir;
  ScriptedService s;
  script_node(s);
  core::Config c;
  c.set("JOULE_SYSFS_ROOT", dir.path());
  c.set("JOULE_SERVICE_SOCKET", s.path());
  EXPECT_TRUE(platform_wanted(c));  // the socket exists
  Platform p(c);
  const std::string text = p.describe();
  EXPECT_NE(text.find("dvfs service: 2 domain(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("(auto: jouled at " + s.path() + ", CPUs 0-2, 2 domain(s))"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("meter service (node-level: other jobs share the packages)"),
            std::string::npos)
      << text;
  EXPECT_EQ(s.connections(), 1);  // DVFS and the meter share one lease
}

}  // namespace
}  // namespace joule::platform
