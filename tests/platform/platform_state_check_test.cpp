// State files are not trusted blindly: a planted or tampered state file of a
// "dead" process must not make the runtime's start-up repair or
// `joule-ctl restore` write anything. Each attack names a victim file and
// what it would write there; both repair paths must refuse it, say why and
// which file, leave the victim as it was and the state file in place. A
// valid state file is still restored.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "fake_tree.hpp"
#include "joule/joule.hpp"

namespace joule::platform {
namespace {

using test::FakeTree;
namespace fs = std::filesystem;

std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) out += std::string{d[c >> 4], d[c & 15]};
  return out;
}

// A pid that is certainly not running: a child that has exited and been reaped.
int dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) std::_Exit(0);
  ::waitpid(pid, nullptr, 0);
  return int(pid);
}

struct Planted {
  std::string victim;    // real path of the file the state file would write
  std::string original;  // its contents, which must stay
  std::string state;     // real path of the state file
};

struct Attack {
  const char* name;
  // Writes the state file (and whatever it needs) into the tree.
  std::function<Planted(FakeTree&)> plant;
  bool needs_root = false;  // chown to another user
};

std::string state_path(const FakeTree& t, int pid) {
  return t.state_dir() + "/joule-" + std::to_string(::geteuid()) + "-" + std::to_string(pid) +
         ".state";
}

// A state file of a dead process that restores each path to its content.
std::string write_state(const FakeTree& t,
                        const std::vector<std::pair<std::string, std::string>>& files,
                        const std::string& padding = "") {
  fs::create_directories(t.state_dir());
  ::chmod(t.state_dir().c_str(), 0700);
  const int pid = dead_pid();
  const std::string file = state_path(t, pid);
  std::ofstream out(file);
  out << "joule-state 1\npid " << pid << " 0\n";
  for (const auto& [path, content] : files)
    out << "file " << hex(path) << " " << hex(content) << "\n";
  out << padding;
  out.close();
  ::chmod(file.c_str(), 0600);
  return file;
}

std::string write_state(const FakeTree& t, const std::string& path, const std::string& content,
                        const std::string& padding = "") {
  return write_state(t, {{path, content}}, padding);
}

void build(FakeTree& t) {
  t.add_userspace_cpu(0, "0");
  t.add_userspace_cpu(1, "1");
  t.write("/outside/scaling_max_freq", "precious\n");
}

// The max frequency of cpu0, which a valid state file would lower.
Planted plant_valid_target(FakeTree& t, const std::string& padding = "") {
  const std::string victim = t.real(FakeTree::cpu_dir(0) + "/scaling_max_freq");
  return {victim, t.read(FakeTree::cpu_dir(0) + "/scaling_max_freq"),
          write_state(t, victim, "1200000\n", padding)};
}

Planted plant_outside(FakeTree& t, const std::string& path) {
  return {t.real("/outside/scaling_max_freq"), "precious\n", write_state(t, path, "1200000\n")};
}

Planted plant_content(FakeTree& t, const std::string& file, const std::string& content) {
  const std::string victim = t.real(FakeTree::cpu_dir(0) + "/" + file);
  return {victim, t.read(FakeTree::cpu_dir(0) + "/" + file), write_state(t, victim, content)};
}

const Attack kAttacks[] = {
    {"PathOutsideCpufreq",
     [](FakeTree& t) { return plant_outside(t, t.real("/outside/scaling_max_freq")); }},
    {"DotDot",
     [](FakeTree& t) {
       return plant_outside(
           t, t.real(FakeTree::cpu_dir(0)) + "/../../../../../../outside/scaling_max_freq");
     }},
    {"SymlinkEscape",
     [](FakeTree& t) {
       t.link(t.real("/outside"), "/sys/devices/system/cpu/cpu7/cpufreq");
       return plant_outside(t, t.real(FakeTree::cpu_dir(7) + "/scaling_max_freq"));
     }},
    {"FileJouleNeverWrites",
     [](FakeTree& t) { return plant_content(t, "scaling_driver", "1200000\n"); }},
    {"GarbageFrequency",
     [](FakeTree& t) { return plant_content(t, "scaling_max_freq", "1200000; reboot\n"); }},
    {"OversizedContent",
     [](FakeTree& t) { return plant_content(t, "scaling_max_freq", std::string(300, '1')); }},
    {"GarbageGovernor",
     [](FakeTree& t) { return plant_content(t, "scaling_governor", "../../etc/passwd\n"); }},
    {"StateFileReadableByOthers",
     [](FakeTree& t) {
       Planted p = plant_valid_target(t);
       ::chmod(p.state.c_str(), 0644);
       return p;
     }},
    {"StateDirWritableByOthers",
     [](FakeTree& t) {
       Planted p = plant_valid_target(t);
       ::chmod(t.state_dir().c_str(), 0777);
       return p;
     }},
    {"StateFileIsASymlink",
     [](FakeTree& t) {
       Planted p = plant_valid_target(t);
       const std::string elsewhere = t.root() + "/elsewhere.state";
       fs::rename(p.state, elsewhere);
       fs::create_symlink(elsewhere, p.state);
       return p;
     }},
    {"OversizedStateFile",
     [](FakeTree& t) { return plant_valid_target(t, "# " + std::string(10u << 20, 'x') + "\n"); }},
    // Another user's file in our folder: it may have been planted by them.
    {"StateFileOwnedByAnotherUser",
     [](FakeTree& t) {
       Planted p = plant_valid_target(t);
       EXPECT_EQ(::lchown(p.state.c_str(), 65534, 65534), 0);
       return p;
     },
     true},
    // Our file in another user's folder: they may swap it between check and use.
    {"StateDirOwnedByAnotherUser",
     [](FakeTree& t) {
       Planted p = plant_valid_target(t);
       EXPECT_EQ(::chown(t.state_dir().c_str(), 65534, 65534), 0);
       return p;
     },
     true},
};

enum class Via { start, ctl };

class StateCheck : public testing::TestWithParam<std::tuple<int, Via>> {};

// Runs the repair of `via`; returns what it printed.
std::string run_repair(const FakeTree& t, Via via) {
  if (via == Via::start) {
    testing::internal::CaptureStderr();
    {
      joule::runtime rt({{"JOULE_STATE_DIR", t.state_dir()},
                         {"JOULE_SYSFS_ROOT", t.root()},
                         {"JOULE_WORKERS", "1"}});
    }
    return testing::internal::GetCapturedStderr();
  }
#ifdef JOULE_CTL_PATH
  const std::string out = t.root() + "/ctl.out";
  const std::string cmd = "JOULE_SYSFS_ROOT=" + t.root() + " " + JOULE_CTL_PATH +
                          " restore --state-dir " + t.state_dir() + " > " + out + " 2>&1";
  (void)std::system(cmd.c_str());
  std::ifstream in(out);
  return std::string(std::istreambuf_iterator<char>(in), {});
#else
  return "";
#endif
}

TEST_P(StateCheck, IsRefusedAndLeftAlone) {
  const auto [index, via] = GetParam();
#ifndef JOULE_CTL_PATH
  if (via == Via::ctl) GTEST_SKIP() << "joule-ctl is not built (JOULE_BUILD_APPS=OFF)";
#endif
  if (kAttacks[index].needs_root && ::geteuid() != 0)
    GTEST_SKIP() << "planting a file owned by another user needs root";
  FakeTree t;
  build(t);
  const Planted p = kAttacks[index].plant(t);
  const std::string said = run_repair(t, via);
  std::ifstream in(p.victim);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), p.original)
      << "the state file was acted on; output:\n"
      << said;
  EXPECT_TRUE(fs::exists(fs::symlink_status(p.state))) << "a refused state file stays";
  EXPECT_NE(said.find("refused state file " + p.state), std::string::npos) << said;
}

std::string attack_name(const testing::TestParamInfo<std::tuple<int, Via>>& i) {
  return std::string(kAttacks[std::get<0>(i.param)].name) +
         (std::get<1>(i.param) == Via::start ? "_AtStart" : "_ByJouleCtl");
}

INSTANTIATE_TEST_SUITE_P(Attacks, StateCheck,
                         testing::Combine(testing::Range(0, int(std::size(kAttacks))),
                                          testing::Values(Via::start, Via::ctl)),
                         attack_name);

class ValidState : public testing::TestWithParam<Via> {};

TEST_P(ValidState, IsStillRestored) {
#ifndef JOULE_CTL_PATH
  if (GetParam() == Via::ctl) GTEST_SKIP() << "joule-ctl is not built (JOULE_BUILD_APPS=OFF)";
#endif
  FakeTree t;
  build(t);
  // As the kernel lays them out: cpu1's policy is reached through a symlink.
  t.write("/sys/devices/system/cpu/cpufreq/policy1/scaling_governor", "userspace\n");
  fs::remove_all(t.real(FakeTree::cpu_dir(1)));
  t.link("../cpufreq/policy1", FakeTree::cpu_dir(1));
  const std::string max0 = FakeTree::cpu_dir(0) + "/scaling_max_freq";
  const std::string gov1 = FakeTree::cpu_dir(1) + "/scaling_governor";
  const std::string state =
      write_state(t, {{t.real(max0), "2000000\n"}, {t.real(gov1), "ondemand\n"}});
  const std::string said = run_repair(t, GetParam());
  EXPECT_EQ(t.read(max0), "2000000\n") << said;
  EXPECT_EQ(t.read(gov1), "ondemand\n") << said;
  EXPECT_FALSE(fs::exists(state)) << said;
  EXPECT_EQ(said.find("refused"), std::string::npos) << said;
}

INSTANTIATE_TEST_SUITE_P(Repair, ValidState, testing::Values(Via::start, Via::ctl),
                         [](const auto& i) {
                           return i.param == Via::start ? "AtStart" : "ByJouleCtl";
                         });

}  // namespace
}  // namespace joule::platform
