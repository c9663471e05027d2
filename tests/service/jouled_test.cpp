// jouled end to end: the built daemon as root over a fake sysfs tree, and
// clients as unprivileged users (jouled_harness.hpp). Each case checks the
// fake files while a client holds CPUs and that they are exactly as found
// (FakeTree::snapshot) once it is gone, however it went.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "job_store.hpp"

#include "fuzz_lines.hpp"
#include "jouled_fixture.hpp"

namespace joule::test {
namespace {

TEST_F(JouledTest, SetChangesTheFilesAndReleaseRestoresThemExactly) {
  build(Layout::pairs);
  ASSERT_TRUE(start()) << log();
  auto c = client({0, 1}, {"hello version=1", "set cpu=0 khz=1500000", "release"}, true);
  EXPECT_NE(c.next().find("ok version=1 user=jouletest"), std::string::npos);
  const std::string set = c.next();
  EXPECT_NE(set.find("ok domain=0 requested=1600000 khz=1600000"), std::string::npos) << set;
  EXPECT_NE(c.next().find("ok energy_j="), std::string::npos);
  EXPECT_EQ(c.next(), "ready");
  EXPECT_TRUE(restored(0)) << "release must put the files back before it answers";
  EXPECT_NE(slurp_file(state_ + "/audit.log").find("old=ondemand new=userspace"),
            std::string::npos);
}

TEST_F(JouledTest, KilledClientIsRestoredWithinOneSecond) {
  build(Layout::pairs);
  ASSERT_TRUE(start()) << log();
  auto c = client({0, 1}, {"hello version=1", "set cpu=1 khz=1200000"});
  c.next();
  EXPECT_NE(c.next().find("ok domain=0"), std::string::npos);
  ASSERT_EQ(c.next(), "ready");
  EXPECT_EQ(file(0, "scaling_governor"), "userspace");
  EXPECT_EQ(file(1, "scaling_setspeed"), "1200000");
  c.kill9();
  EXPECT_TRUE(restored(1000)) << log();
}

TEST_F(JouledTest, KilledServiceRestartRestoresDeadClientsAndAdoptsLiveOnes) {
  build(Layout::singles);
  ASSERT_TRUE(start()) << log();
  auto dead = client({0}, {"hello version=1", "set cpu=0 khz=1200000"});
  auto live = client({1}, {"hello version=1", "set cpu=1 khz=1600000"});
  for (auto* c : {&dead, &live}) {
    c->next();
    c->next();
    ASSERT_EQ(c->next(), "ready");
  }
  stop(SIGKILL);
  dead.kill9();
  EXPECT_EQ(file(0, "scaling_setspeed"), "1200000") << "kill -9 of jouled leaves its changes";
  ASSERT_TRUE(start()) << log();
  // The dead client's CPU is back at once; the live one keeps its frequency.
  EXPECT_TRUE(eventually([&] { return file(0, "scaling_governor") == "ondemand"; }, 1000)) << log();
  EXPECT_EQ(file(1, "scaling_setspeed"), "1600000");
  EXPECT_NE(log().find("adopted the lease of pid " + std::to_string(live.pid())), std::string::npos)
      << log();
  live.kill9();
  EXPECT_TRUE(restored(1000)) << log();
}

TEST_F(JouledTest, UserNotInTheAccessFileIsDeniedAndNothingChanges) {
  build(Layout::pairs);
  ASSERT_TRUE(start()) << log();
  auto c = client({0, 1}, {"hello version=1", "set cpu=0 khz=1200000"}, false, kOther);
  EXPECT_NE(c.next().find("err code=denied"), std::string::npos);
  EXPECT_NE(c.next().find("err code=state"), std::string::npos);
  EXPECT_EQ(c.wait(), 0);
  EXPECT_EQ(tree_->snapshot(), before_);
}

TEST_F(JouledTest, CpuOutsideAffinityOrCpusetIsOutOfScope) {
  build(Layout::singles);
  ASSERT_TRUE(start()) << log();
  auto a = client({0}, {"hello version=1", "set cpu=1 khz=1200000"}, false);
  EXPECT_NE(a.next().find("cpus=0 "), std::string::npos);
  EXPECT_NE(a.next().find("err code=scope"), std::string::npos);
  a.wait();
  // The cgroup's cpuset narrows the affinity: CPU 0 is not in it.
  tree_->write("/cg/cpuset/cpuset.effective_cpus", "1\n");
  auto b = client({0, 1}, {"hello version=1", "set cpu=0 khz=1200000"}, false);
  EXPECT_NE(b.next().find("cpus=1 "), std::string::npos);
  EXPECT_NE(b.next().find("err code=scope"), std::string::npos);
  b.wait();
  EXPECT_EQ(tree_->snapshot(), before_);
}

TEST_F(JouledTest, TwoClientsOnDisjointCpus) {
  build(Layout::singles);
  ASSERT_TRUE(start()) << log();
  auto a = client({0}, {"hello version=1", "set cpu=0 khz=1200000", "release"});
  auto b = client({1}, {"hello version=1", "set cpu=1 khz=2000000"});
  b.next();
  EXPECT_NE(b.next().find("ok domain=1 requested=2000000"), std::string::npos);
  ASSERT_EQ(b.next(), "ready");
  a.next();
  EXPECT_NE(a.next().find("ok domain=0 requested=1200000"), std::string::npos);
  a.next();
  ASSERT_EQ(a.next(), "ready");
  // a released: its CPU is back, b's is not.
  EXPECT_EQ(file(0, "scaling_governor"), "ondemand");
  EXPECT_EQ(file(1, "scaling_setspeed"), "2000000");
  b.kill9();
  EXPECT_TRUE(restored()) << log();
}

TEST_F(JouledTest, CpuHeldByAnotherLeaseIsRefusedNamingItsPid) {
  build(Layout::pairs);
  ASSERT_TRUE(start()) << log();
  auto a = client({0, 1}, {"hello version=1", "set cpu=0 khz=1200000"});
  a.next();
  a.next();
  ASSERT_EQ(a.next(), "ready");
  auto b = client({0, 1}, {"hello version=1", "set cpu=1 khz=2400000"}, false);
  b.next();
  const std::string refused = b.next();
  EXPECT_NE(refused.find("err code=scope"), std::string::npos) << refused;
  EXPECT_NE(refused.find("pid%20" + std::to_string(a.pid())), std::string::npos) << refused;
  b.wait();
  EXPECT_EQ(file(1, "scaling_setspeed"), "1200000");
  a.kill9();
  EXPECT_TRUE(restored()) << log();
}

// {0,1} is one policy. protect: CPU 1, which no lease holds, keeps the
// domain at its original until every CPU is held; then the highest
// request wins. owners: the holders alone decide.
TEST_F(JouledTest, SharedDomainRunsAtTheHighestRequestAndProtectsUnheldCpus) {
  build(Layout::shared);
  ASSERT_TRUE(start()) << log();
  auto a = client({0}, {"hello version=1", "set cpu=0 khz=1200000"});
  a.next();
  EXPECT_NE(a.next().find("requested=1200000 khz=2400000"), std::string::npos);
  ASSERT_EQ(a.next(), "ready");
  EXPECT_EQ(tree_->snapshot(), before_) << "an unheld CPU of the domain is never slowed";
  auto b = client({1}, {"hello version=1", "set cpu=1 khz=1600000"});
  b.next();
  EXPECT_NE(b.next().find("requested=1600000 khz=1600000"), std::string::npos);
  ASSERT_EQ(b.next(), "ready");
  EXPECT_EQ(file(0, "scaling_setspeed"), "1600000");
  b.kill9();
  EXPECT_TRUE(restored()) << "b gone: CPU 1 unheld again, the domain back to its original";
  a.kill9();
  EXPECT_TRUE(restored());
  EXPECT_EQ(stop(), 0);
  ASSERT_TRUE(start({"--shared-domains", "owners"})) << log();
  auto c = client({0}, {"hello version=1", "set cpu=0 khz=1200000"});
  c.next();
  EXPECT_NE(c.next().find("khz=1200000"), std::string::npos);
  ASSERT_EQ(c.next(), "ready");
  EXPECT_EQ(file(0, "scaling_setspeed"), "1200000");
  c.kill9();
  EXPECT_TRUE(restored()) << log();
}

TEST_F(JouledTest, BadFlagsAndFilesAreRefusedWithAMessage) {
  build(Layout::pairs);
  struct Case {
    std::string text;
    mode_t mode;
    std::string says;
  };
  const Case cases[] = {
      {"[[allow]]\nusers = [\"jouletest\"]\ncontrols = [\"frequency\"]\n", 0666, "writable"},
      {"[[allow]\nusers = 3\n", 0644, "access.toml"},
  };
  for (const auto& c : cases) {
    write_access(c.text, c.mode);
    ASSERT_FALSE(start()) << c.text;
    EXPECT_EQ(exit_status(), 1) << log();
    EXPECT_NE(log().find(c.says), std::string::npos) << log();
  }
  tree_->remove("/access.toml");
  ASSERT_FALSE(start());
  EXPECT_EQ(exit_status(), 1);
  EXPECT_NE(log().find("access.toml"), std::string::npos) << log();
  ASSERT_FALSE(start({"--shared-domains", "sometimes"}));
  EXPECT_EQ(exit_status(), 2);
  EXPECT_NE(log().find("protect"), std::string::npos) << log();
  EXPECT_EQ(tree_->snapshot(), before_);
}

TEST_F(JouledTest, UntrustedStateIsRefusedAndNotActedOn) {
  build(Layout::pairs);
  write_access(std::string("[[allow]]\nusers = [\"") + kUser + "\"]\ncontrols = [\"frequency\"]\n");
  ::mkdir(state_.c_str(), 0700);
  auto hex = [](const std::string& s) {
    std::string out;
    char b[3];
    for (unsigned char ch : s) {
      std::snprintf(b, sizeof b, "%02x", ch);
      out += b;
    }
    return out;
  };
  const std::string planted = "joule-state 1\npid 999999 0\nfile " +
                              hex(tree_->real(FakeTree::cpu_dir(0) + "/scaling_governor")) + " " +
                              hex("performance\n") + "\n";
  const std::string name = state_ + "/joule-0-999999.state";
  std::ofstream(name) << planted;
  ::chmod(name.c_str(), 0644);  // others may read: not trusted
  ASSERT_TRUE(start()) << log();
  EXPECT_NE(log().find("joule-0-999999.state refused"), std::string::npos) << log();
  EXPECT_EQ(stop(), 0);
  EXPECT_EQ(tree_->snapshot(), before_);
  // A state folder others may write is refused outright.
  ::chmod(state_.c_str(), 0777);
  ASSERT_FALSE(start());
  EXPECT_EQ(exit_status(), 1);
  EXPECT_NE(log().find("state folder"), std::string::npos) << log();
}

// Random and mutated lines, raw bytes and overlong lines from a granted
// user for ~5 s; jouled must still answer a fresh hello, and with every
// fuzzing connection closed the tree must be as found.
TEST_F(JouledTest, ProtocolFuzzingLeavesTheServiceUpAndTheTreeUntouched) {
  build(Layout::pairs);
  ASSERT_TRUE(start()) << log();
  const pid_t fuzzer = ::fork();
  if (fuzzer == 0) {
    const passwd* pw = ::getpwnam(kUser);
    if (!pw || ::setgroups(0, nullptr) || ::setgid(pw->pw_gid) || ::setuid(pw->pw_uid)) _exit(90);
    _exit(fuzz(socket_));
  }
  int st = 0;
  ASSERT_EQ(::waitpid(fuzzer, &st, 0), fuzzer);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
  EXPECT_EQ(::waitpid(daemon_, nullptr, WNOHANG), 0) << "jouled died: " << log();
  auto c = client({0, 1}, {"hello version=1"}, false);
  EXPECT_NE(c.next().find("ok version=1"), std::string::npos) << log();
  c.wait();
  EXPECT_TRUE(restored()) << log();
}

// A job on package 0: the energy verb reads the RAPL zone, release
// writes its record (energy, residency at 1.2 GHz), and `jobs` finds it,
// for its own user only.
TEST_F(JouledTest, EnergyAndJobRecords) {
  build(Layout::pairs);
  const std::string zone = "/sys/class/powercap/intel-rapl:0";
  tree_->write(zone + "/name", "package-0\n");
  tree_->write(zone + "/max_energy_range_uj", "1000000000\n");
  tree_->write(zone + "/energy_uj", "1000000\n");
  ASSERT_TRUE(start()) << log();
  auto a = client({0, 1}, {"hello version=1 job=j42", "set cpu=0 khz=1200000"});
  EXPECT_NE(a.next().find("job=j42 job_source=client"), std::string::npos);
  a.next();
  ASSERT_EQ(a.next(), "ready");
  tree_->write(zone + "/energy_uj", "6000000\n");  // 5 J later
  before_ = tree_->snapshot();
  for (auto& [path, entry] : before_)  // what CPU 0 and 1 held before the set
    if (path.find("/cpufreq/scaling_governor") != std::string::npos)
      entry.first = "ondemand\n";
    else if (path.find("/cpufreq/scaling_setspeed") != std::string::npos)
      entry.first = "<unsupported>\n";
  auto b = client({0, 1}, {"hello version=1", "energy", "jobs"}, false);
  b.next();
  EXPECT_NE(b.next().find("ok zones=1"), std::string::npos);
  b.wait();
  a.kill9();
  ASSERT_TRUE(restored()) << log();
  auto c = client({0, 1}, {"jobs job=j42"}, false);
  EXPECT_EQ(c.next(), "ok count=1") << log();
  c.wait();
  auto other = client({0, 1}, {"jobs job=j42"}, false, kOther);
  EXPECT_EQ(other.next(), "ok count=0") << "a user sees only their own jobs";
  other.wait();
  // The record itself, straight from the store.
  std::string why;
  auto store = service::JobStore::open(state_ + "/jobs.db", &why);
  ASSERT_TRUE(store) << why;
  service::JobQuery q;
  q.job = "j42";
  auto recs = store->query(q, &why);
  ASSERT_EQ(recs.size(), 1u) << why;
  EXPECT_EQ(recs[0].user, kUser);
  EXPECT_EQ(recs[0].job_source, "client");
  EXPECT_EQ(recs[0].cpus, (std::vector<int>{0, 1}));
  EXPECT_NEAR(recs[0].energy_j, 5.0, 1e-6);
  EXPECT_EQ(recs[0].energy_scope, "node") << "b's lease ran on package 0 at the same time";
  ASSERT_FALSE(recs[0].pstate_s.empty());
  EXPECT_EQ(recs[0].pstate_s.front().first, 1200000u);
}

// Root's job-end ends every lease of the job; SIGTERM puts back whatever
// live clients still hold and exits 0.
TEST_F(JouledTest, JobEndAndSigtermPutEverythingBack) {
  build(Layout::singles);
  ASSERT_TRUE(start()) << log();
  auto a = client({0}, {"hello version=1 job=77", "set cpu=0 khz=1200000"});
  auto b = client({1}, {"hello version=1 job=78", "set cpu=1 khz=1200000"});
  for (auto* c : {&a, &b}) {
    c->next();
    c->next();
    ASSERT_EQ(c->next(), "ready");
  }
  auto user_end = client({}, {"job-end job=77"}, false);
  EXPECT_NE(user_end.next().find("err code=denied"), std::string::npos);
  user_end.wait();
  auto root_end = client({}, {"job-end job=77"}, false, "root");
  EXPECT_EQ(root_end.next(), "ok leases=1");
  root_end.wait();
  EXPECT_EQ(file(0, "scaling_governor"), "ondemand");
  EXPECT_EQ(file(1, "scaling_setspeed"), "1200000");
  EXPECT_EQ(stop(SIGTERM), 0);
  EXPECT_TRUE(restored(0)) << log();
}

// SIGHUP rereads the access file; one that fails to load leaves the old
// grants in force.
TEST_F(JouledTest, HupReloadsTheAccessFileAndKeepsTheOldOneOnError) {
  build(Layout::pairs);
  ASSERT_TRUE(start()) << log();
  write_access("[[allow]\n", 0644);
  ::kill(daemon_, SIGHUP);
  ASSERT_TRUE(
      eventually([&] { return log().find("the old one stays") != std::string::npos; }, 2000))
      << log();
  auto a = client({0, 1}, {"hello version=1"}, false);
  EXPECT_NE(a.next().find("ok version=1"), std::string::npos);
  a.wait();
  write_access(std::string("[[allow]]\nusers = [\"") + kOther + "\"]\ncontrols = [\"energy\"]\n");
  ::kill(daemon_, SIGHUP);
  ASSERT_TRUE(
      eventually([&] { return log().find("access file reloaded") != std::string::npos; }, 2000))
      << log();
  auto b = client({0, 1}, {"hello version=1"}, false);
  EXPECT_NE(b.next().find("err code=denied"), std::string::npos);
  b.wait();
  auto c = client({0, 1}, {"hello version=1", "set cpu=0 khz=1200000"}, false, kOther);
  EXPECT_NE(c.next().find("controls=energy"), std::string::npos);
  EXPECT_NE(c.next().find("err code=denied"), std::string::npos);
  c.wait();
}

// An overlong line is answered bad-request and the connection closed.
TEST_F(JouledTest, OverlongLineClosesTheConnection) {
  build(Layout::pairs);
  ASSERT_TRUE(start()) << log();
  const int fd = fuzz_connect(socket_);
  ASSERT_GE(fd, 0);
  const std::string line(5000, 'a');
  ASSERT_EQ(::send(fd, line.data(), line.size(), MSG_NOSIGNAL), ssize_t(line.size()));
  std::string got;
  char buf[256];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 2000) <= 0) break;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;  // closed by jouled
    got.append(buf, std::size_t(n));
  }
  ::close(fd);
  EXPECT_NE(got.find("err code=bad-request"), std::string::npos) << got;
  EXPECT_EQ(tree_->snapshot(), before_);
}

// One user holds at most 32 connections (server.hpp): the next is refused
// with a line saying so and closed, without touching another user's
// connection; once one of the 32 closes, a new connection is served again
// (a bad line gets its answer, not the refusal). Root has no such limit.
TEST_F(JouledTest, ClientsOfOneUserAreLimited) {
  build(Layout::pairs);
  ASSERT_TRUE(start()) << log();
  const uid_t uid = 61000;
  const int other = connect_as(uid + 1);
  ASSERT_GE(other, 0);
  std::vector<int> held;
  for (int i = 0; i < 32; ++i) {
    held.push_back(connect_as(uid));
    ASSERT_GE(held.back(), 0) << i;
  }
  const int extra = connect_as(uid);
  ASSERT_GE(extra, 0);
  const std::string refused = read_for(extra, 2000);
  ::close(extra);
  EXPECT_NE(refused.find("err code=denied"), std::string::npos) << refused;
  EXPECT_NE(refused.find("too%20many%20clients%20of%20uid%2061000%20(32%20per%20user)"),
            std::string::npos)
      << refused;  // the protocol's values are percent-encoded
  auto answer = [](int fd) {
    const std::string line = "frob\n";
    return ::send(fd, line.data(), line.size(), MSG_NOSIGNAL) == ssize_t(line.size())
               ? read_for(fd, 500)
               : std::string();
  };
  EXPECT_NE(answer(other).find("err code=bad-request"), std::string::npos) << "other user served";
  ::close(other);
  ::close(held.back());
  held.pop_back();
  std::string served;
  for (int tries = 0; tries < 50 && served.find("bad-request") == std::string::npos; ++tries) {
    const int fd = connect_as(uid);  // jouled may not have seen the close yet
    ASSERT_GE(fd, 0);
    served = answer(fd);
    ::close(fd);
  }
  EXPECT_NE(served.find("err code=bad-request"), std::string::npos) << served;
  for (int fd : held) ::close(fd);
  EXPECT_EQ(tree_->snapshot(), before_);
}

// Socket activation: the listening socket comes as fd 3 (sd_listen_fds(3));
// jouled serves it and leaves its file alone.
TEST_F(JouledTest, ServesTheSocketSystemdPasses) {
  build(Layout::pairs);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, socket_.c_str(), sizeof a.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ::chmod(socket_.c_str(), 0666);
  ASSERT_EQ(::listen(fd, 8), 0);
  ASSERT_TRUE(start({}, fd)) << log();
  ::close(fd);
  // The socket accepted before jouled ran: wait for jouled to say it serves it.
  ASSERT_TRUE(eventually([&] { return log().find("systemd passed") != std::string::npos; }, 5000))
      << log();
  auto c = client({0, 1}, {"hello version=1", "set cpu=0 khz=1200000", "release"}, false);
  EXPECT_NE(c.next().find("ok version=1"), std::string::npos);
  EXPECT_NE(c.next().find("ok domain=0"), std::string::npos);
  c.wait();
  EXPECT_TRUE(restored()) << log();
  EXPECT_EQ(stop(), 0);
  EXPECT_EQ(::access(socket_.c_str(), F_OK), 0) << "systemd's socket is systemd's to remove";
}

}  // namespace
}  // namespace joule::test
