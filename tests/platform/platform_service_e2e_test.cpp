// A joule program as an unprivileged user, with jouled (the real daemon,
// as root) over a fake tree: JOULE_DVFS=auto finds the service and the
// energy policy changes frequencies through it; a user the access file does
// not name runs without DVFS; the service meter reads the fake RAPL zone.
// The client reads no fake tree (its JOULE_SYSFS_ROOT is unset): it talks
// to the service only, as on a cluster node.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <regex>
#include <thread>

#include "fake_tree.hpp"
#include "service_client.hpp"
#include "test_users.hpp"
#include "user_reachable.hpp"

namespace joule::test {
namespace {

const std::string kRapl = "/sys/class/powercap/intel-rapl:0";

class ServiceE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "runs jouled as root and the program as a test user";
    if (!ensure_user(kUser) || !ensure_user(kOther))
      GTEST_SKIP() << "cannot create the test users " << kUser << ", " << kOther << " (useradd)";
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) != 0 || !CPU_ISSET(0, &set) || !CPU_ISSET(1, &set))
      GTEST_SKIP() << "needs CPUs 0 and 1 in this process's affinity";
    if (!reach_.usable())
      GTEST_SKIP() << "energy_bench cannot run as " << kUser << ": " << reach_.why();
    ::chmod(tree_.root().c_str(), 0755);  // the test users reach the socket through it
    for (int c = 0; c < 4; ++c) {
      tree_.add_userspace_cpu(c, std::to_string(c));
      tree_.write(
          "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/physical_package_id",
          "0\n", 0444);
    }
    tree_.write(kRapl + "/name", "package-0\n");
    tree_.write(kRapl + "/energy_uj", "5000000\n", 0400);
    tree_.write(kRapl + "/max_energy_range_uj", "262143328850\n", 0444);
    tree_.write("/cg/cpuset/cpuset.effective_cpus", "0-3\n");
    tree_.write("/access.toml", std::string("[[allow]]\nusers = [\"") + kUser +
                                    "\"]\ncontrols = [\"frequency\", \"energy\"]\n");
    before_ = tree_.snapshot();
    ASSERT_TRUE(start()) << slurp_file(log_);
  }
  void TearDown() override {
    if (daemon_ > 0) {
      ::kill(daemon_, SIGTERM);
      ::waitpid(daemon_, nullptr, 0);
    }
  }

  bool start() {
    socket_ = tree_.root() + "/run/jouled.sock";
    log_ = tree_.root() + "/jouled.log";
    daemon_ = ::fork();
    if (daemon_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(fd, 2);
      const std::string r = tree_.root();
      std::vector<std::string> args = {
          JOULED_PATH,   "--foreground", "--sysfs-root",  r,
          "--socket",    socket_,        "--access",      r + "/access.toml",
          "--state-dir", r + "/jstate",  "--cgroup-root", r + "/cg"};
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    // The socket path must fit sockaddr_un (108 bytes): short test names.
    return eventually(
               [&] {
                 std::string why;
                 if (::waitpid(daemon_, nullptr, WNOHANG) == daemon_) return (daemon_ = -1), true;
                 return platform::service_client::Client::connect(socket_, 200, &why) != nullptr;
               },
               5000) &&
           daemon_ > 0;
  }

  // Runs energy_bench (keyed iterations, imbalanced 2:1) as `user` on CPUs
  // 0-1 with only these variables; its stdout and stderr, or a failure.
  std::string run_as(const std::string& user, std::vector<std::string> env) {
    const std::string out = tree_.root() + "/client." + user + ".out";
    env.push_back("JOULE_SERVICE_SOCKET=" + socket_);
    env.push_back("JOULE_REPORT=1");
    env.push_back("JOULE_WORKERS=2");
    env.push_back("JOULE_ENERGY_POLICY=fg-energylb");
    if (!reach_.env().empty()) env.push_back(reach_.env());
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(client_child(user, out, env, reach_));
    int st = 0;
    const bool done = eventually([&] { return ::waitpid(pid, &st, WNOHANG) == pid; }, 60000);
    if (!done) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      ADD_FAILURE() << "the program did not end in 60 s";
    }
    EXPECT_TRUE(done && WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
    return slurp_file(out);
  }

  static int client_child(const std::string& user, const std::string& out,
                          const std::vector<std::string>& env,
                          const joule_test::UserReachable& reach) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    const passwd* pw = ::getpwnam(user.c_str());
    if (!pw || ::setgroups(0, nullptr) != 0 || ::setgid(pw->pw_gid) != 0 ||
        ::setuid(pw->pw_uid) != 0)
      return 90;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    CPU_SET(1, &set);
    if (::sched_setaffinity(0, sizeof set, &set) != 0) return 91;
    if (::chdir(reach.dir().c_str()) != 0) return 92;  // the build tree may be closed to the user
    std::vector<std::string> args = {reach.path(ENERGY_BENCH_PATH), "iter", "60", "3000"};
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> e = env;
    for (auto& v : e) envp.push_back(v.data());
    envp.push_back(nullptr);
    ::execve(argv[0], argv.data(), envp.data());
    return 127;
  }

  // energy_bench where the test user can run it (a clone in a 0700 folder hides the build tree).
  joule_test::UserReachable reach_{{ENERGY_BENCH_PATH}};
  FakeTree tree_;
  FakeTree::Snapshot before_;
  std::string socket_, log_;
  pid_t daemon_ = -1;
};

TEST_F(ServiceE2E, AutoUsesTheService) {
  const std::string out = run_as(kUser, {"SLURM_JOB_ID=4242"});
  EXPECT_NE(out.find("dvfs service: 2 domain(s)"), std::string::npos) << out;
  EXPECT_NE(out.find("(auto: jouled at " + socket_ + ", CPUs 0-1, 2 domain(s))"), std::string::npos)
      << out;
  // The light core (worker 1, one block of three) spent time below fmax.
  EXPECT_TRUE(std::regex_search(out, std::regex("\n  cpu 1: .*(1\\.20|1\\.60|2\\.00) GHz"))) << out;
  EXPECT_EQ(out.find("warning"), std::string::npos) << out;
  // jouled's audit log shows the changes, made for the test user.
  const std::string audit = slurp_file(tree_.root() + "/jstate/audit.log");
  EXPECT_TRUE(std::regex_search(
      audit, std::regex("user=jouletest .*job=4242 .*cpu1/cpufreq/scaling_setspeed old=\\S+ "
                        "new=1[26]00000")))
      << audit;
  EXPECT_TRUE(eventually([&] { return tree_.snapshot() == before_; }, 2000))
      << "the fake tree differs after the run";
}

TEST_F(ServiceE2E, UnlistedUserRunsWithoutDvfs) {
  const std::string out = run_as(kOther, {});
  EXPECT_NE(out.find("dvfs none (auto: "), std::string::npos) << out;
  EXPECT_NE(out.find("jouled at " + socket_ + " refused this user"), std::string::npos) << out;
  EXPECT_EQ(out.find("warning: service"), std::string::npos) << out;  // auto: silently
  EXPECT_TRUE(tree_.snapshot() == before_) << "the fake tree was changed";
  // Asked for explicitly, the refusal is one warning.
  const std::string asked = run_as(kOther, {"JOULE_DVFS=service"});
  const auto first = asked.find("warning: service: jouled at " + socket_ + " refused this user");
  EXPECT_NE(first, std::string::npos) << asked;
  EXPECT_EQ(asked.find("warning: service", first + 1), std::string::npos) << asked;
  EXPECT_TRUE(tree_.snapshot() == before_) << "the fake tree was changed";
}

TEST_F(ServiceE2E, MeterReadsFakeRapl) {
  if (slurp_file(log_).find("no energy meter") != std::string::npos)
    GTEST_SKIP() << "this jouled has no energy meter: " << slurp_file(log_);
  // The fake package draws 1 J every 10 ms while the program runs.
  std::atomic<bool> stop{false};
  std::atomic<long> joules{0};
  std::thread rapl([&] {
    for (std::uint64_t uj = 5000000; !stop;
         std::this_thread::sleep_for(std::chrono::milliseconds(10))) {
      uj += 1000000;
      // Replaced whole, so that jouled never reads a half-written counter.
      const std::string tmp = tree_.real(kRapl + "/energy_uj.new");
      std::ofstream(tmp) << uj << "\n";
      ::chmod(tmp.c_str(), 0400);
      ::rename(tmp.c_str(), tree_.real(kRapl + "/energy_uj").c_str());
      ++joules;
    }
  });
  const std::string out = run_as(kUser, {"JOULE_METER=service"});
  stop = true;
  rapl.join();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("energy: ([0-9.]+) J measured \\(service")))
      << out;
  const double j = std::stod(m[1]);
  EXPECT_GE(j, 1.0) << out;
  EXPECT_LE(j, double(joules.load())) << out;
  EXPECT_NE(out.find("; meter service"), std::string::npos) << out;
}

}  // namespace
}  // namespace joule::test
