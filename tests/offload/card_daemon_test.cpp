// The joule-card daemon and JOULE_CARD=attach (docs/card.md, "The
// joule-card daemon"): a daemon serves card_attach_prog twice, survives the
// host killed mid-run and a card that dies, and serves a third run; a host
// naming no daemon, bad names, a second daemon under a used name, a stale
// socket, --help and SIGTERM's cleanup.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  pid_t pid = -1;
  int out = -1;  // stdout and stderr together
};

Child launch(const std::vector<std::string>& args) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  Child c;
  c.pid = fork();
  if (c.pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  c.out = fds[0];
  return c;
}

// Reads until `until` appears (empty: until EOF) or the time is up.
std::string read_out(const Child& c, const std::string& until, int seconds) {
  std::string out;
  const auto end = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < end) {
    if (!until.empty() && out.find(until) != std::string::npos) break;
    pollfd p{c.out, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(c.out, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, std::size_t(n));
  }
  return out;
}

int finish(Child& c) {
  int status = 0;
  waitpid(c.pid, &status, 0);
  close(c.out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs a program to its end: exit status and output.
std::pair<int, std::string> run(const std::vector<std::string>& args, int seconds = 60) {
  Child c = launch(args);
  std::string out = read_out(c, "", seconds);
  return {finish(c), out};
}

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

std::string unique_name(const char* what) {
  return std::string("test-") + what + "-" + std::to_string(getpid());
}

class Daemon {
 public:
  explicit Daemon(const std::string& name) : name_(name) {
    child_ = launch({JOULE_CARD_EXE, "--name", name, "--topology", "package:1 core:2 pu:2",
                     "--staging-mb", "4", "--freqs", "1.053,0.6", "--freq", "0.6"});
    banner_ = read_out(child_, "joule-card: serving", 30);
  }
  ~Daemon() {
    if (child_.pid > 0) stop();
  }
  int stop() {
    kill(child_.pid, SIGTERM);
    log_ += read_out(child_, "", 30);
    const int rc = finish(child_);
    child_.pid = -1;
    return rc;
  }
  const std::string& banner() const { return banner_; }
  const std::string& log() const { return log_; }

 private:
  std::string name_;
  Child child_;
  std::string banner_, log_;
};

TEST(CardDaemon, ServesRunsSurvivesAKilledHostAndCleansUpOnSigterm) {
  const std::string name = unique_name("serve");
  const std::string sock = "/tmp/joule-card." + name + ".sock";
  const std::string seg = "/dev/shm/joule-card." + name;
  Daemon d(name);
  ASSERT_NE(d.banner().find("serving card '" + name + "'"), std::string::npos) << d.banner();
  EXPECT_TRUE(exists(sock));
  EXPECT_TRUE(exists(seg));
  for (int i = 0; i < 2; ++i) {
    const auto [rc, out] = run({CARD_ATTACH_PROG, name, "ok"});
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("OK"), std::string::npos) << out;
    EXPECT_NE(out.find("alive 1"), std::string::npos) << out;
    EXPECT_NE(out.find("freq 0.6"), std::string::npos) << out;  // the daemon's P-state
  }
  // A host killed while its card task runs: the daemon kills the worker and
  // resets the segment; the next host is served.
  Child slow = launch({CARD_ATTACH_PROG, name, "slow"});
  ASSERT_NE(read_out(slow, "started", 30).find("started"), std::string::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(slow.pid, SIGKILL);
  EXPECT_EQ(finish(slow), 128 + SIGKILL);
  const auto [rc3, out3] = run({CARD_ATTACH_PROG, name, "ok"});
  EXPECT_EQ(rc3, 0) << out3;
  EXPECT_NE(out3.find("OK"), std::string::npos) << out3;
  // A card that dies: the host's tasks fail at taskwait, the daemon goes on.
  const auto [rc4, out4] = run({CARD_ATTACH_PROG, name, "crash"});
  EXPECT_EQ(rc4, 0) << out4;
  EXPECT_NE(out4.find("died (killed by signal 9)"), std::string::npos) << out4;
  const auto [rc5, out5] = run({CARD_ATTACH_PROG, name, "ok"});
  EXPECT_EQ(rc5, 0) << out5;
  EXPECT_EQ(d.stop(), 0) << d.log();
  EXPECT_NE(d.log().find("stopped after 6 host(s)"), std::string::npos) << d.log();
  EXPECT_FALSE(exists(sock));
  EXPECT_FALSE(exists(seg));
}

TEST(CardDaemon, HostWithoutDaemonGetsAClearError) {
  const auto [rc, out] = run({CARD_ATTACH_PROG, unique_name("missing"), "ok"});
  EXPECT_EQ(rc, 3) << out;
  EXPECT_NE(out.find("JOULE_CARD=attach, JOULE_CARD_DAEMON=" + unique_name("missing") +
                     ": no joule-card daemon is running under that name"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("start one with 'joule-card --name"), std::string::npos) << out;
}

TEST(CardDaemon, BadNamesAndValuesAreErrors) {
  const auto [rc, out] = run({CARD_ATTACH_PROG, "../etc", "ok"});
  EXPECT_EQ(rc, 3) << out;
  EXPECT_NE(out.find("JOULE_CARD_DAEMON=../etc"), std::string::npos) << out;
  EXPECT_NE(out.find("allowed values: a daemon name"), std::string::npos) << out;
  const auto [rc2, out2] = run({JOULE_CARD_EXE, "--name", "a/b"});
  EXPECT_EQ(rc2, 1) << out2;
  EXPECT_NE(out2.find("bad daemon name 'a/b'"), std::string::npos) << out2;
  const auto [rc3, out3] =
      run({JOULE_CARD_EXE, "--name", unique_name("bad"), "--affinity", "spread"});
  EXPECT_EQ(rc3, 1) << out3;
  EXPECT_NE(out3.find("--affinity=spread: unknown affinity 'spread' (allowed: compact, scatter, "
                      "balanced); allowed values: compact, scatter or balanced, optionally "
                      "followed by ,permute[,offset]"),
            std::string::npos)
      << out3;
  const auto [rc4, out4] = run({JOULE_CARD_EXE, "--name", unique_name("bad"), "--topology",
                                "package:1 core:2 pu:2", "--threads", "5"});
  EXPECT_EQ(rc4, 1) << out4;
  EXPECT_NE(out4.find("has 4 PUs; use 1..4"), std::string::npos) << out4;
}

TEST(CardDaemon, OneDaemonPerNameAndStaleSocketsAreReplaced) {
  const std::string name = unique_name("stale");
  const std::string sock = "/tmp/joule-card." + name + ".sock";
  {  // what a killed daemon leaves: a socket file nobody listens on
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", sock.c_str());
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    close(fd);
  }
  Daemon d(name);
  ASSERT_NE(d.banner().find("serving"), std::string::npos) << d.banner();
  const auto [rc, out] = run({JOULE_CARD_EXE, "--name", name});
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("a joule-card daemon named '" + name + "' is already running"),
            std::string::npos)
      << out;
  const auto [rc2, out2] = run({CARD_ATTACH_PROG, name, "ok"});  // the first is still serving
  EXPECT_EQ(rc2, 0) << out2;
}

TEST(CardDaemon, Help) {
  const auto [rc, out] = run({JOULE_CARD_EXE, "--help"});
  EXPECT_EQ(rc, 0);
  EXPECT_NE(out.find("JOULE_CARD=attach"), std::string::npos) << out;
  EXPECT_NE(out.find("--topology"), std::string::npos) << out;
}

}  // namespace
