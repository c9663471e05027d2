// Child processes that run joule with cpufreq DVFS on a fake tree, for the
// restore tests: the child starts a runtime, runs `setup` (which returns a
// byte to report), writes that byte to a pipe, then runs `then` (pause, a
// signal, ...). The parent reads the byte, so it knows the child's changes
// are in the tree before it acts.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "fake_tree.hpp"
#include "joule/joule.hpp"
#include "platform.hpp"

namespace joule::test {

// Two per-core userspace policies and one shared intel_pstate-like policy.
inline void build_tree(FakeTree& t) {
  t.add_userspace_cpu(0, "0");
  t.add_userspace_cpu(1, "1");
  t.add_pstate_cpu(2, "2-3");
  t.add_pstate_cpu(3, "2-3");
}

inline joule::runtime start_cpufreq(const FakeTree& t) {
  return joule::runtime({{"JOULE_DVFS", "cpufreq"},
                         {"JOULE_ENERGY_POLICY", "none"},  // the test sets frequencies
                         {"JOULE_SYSFS_ROOT", t.root()},
                         {"JOULE_STATE_DIR", t.state_dir()},
                         {"JOULE_WORKERS", "1"}});
}

// 'r' if every CPU of the tree was set to 1.2 GHz, 'h' if none could be
// (another process holds them), 'p' if only some.
inline char lower_everything() {
  platform::Platform* p = platform::current_platform();
  if (!p) std::_Exit(90);
  int ok = 0;
  for (int cpu = 0; cpu < 4; ++cpu) ok += p->dvfs().set_frequency(cpu, 1200000);
  return ok == 4 ? 'r' : ok == 0 ? 'h' : 'p';
}

// Returns the child's pid, or minus it if the child did not report; *got
// is the byte it reported.
template <class Setup, class Then>
pid_t spawn_cpufreq_child(const FakeTree& t, Setup setup, Then then, char* got = nullptr) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    rlimit none{0, 0};
    ::setrlimit(RLIMIT_CORE, &none);  // deaths by signal: no core file
    auto rt = start_cpufreq(t);
    const char c = setup();
    if (::write(fds[1], &c, 1) != 1) std::_Exit(92);
    then();
    std::_Exit(0);
  }
  ::close(fds[1]);
  char c = 0;
  const bool ready = ::read(fds[0], &c, 1) == 1;
  ::close(fds[0]);
  if (got) *got = c;
  return ready ? pid : -pid;
}

// The classic child: lowers everything (or exits 91), then runs `then`.
template <class Then>
pid_t spawn_child(const FakeTree& t, Then then) {
  return spawn_cpufreq_child(
      t,
      [] {
        if (lower_everything() != 'r') std::_Exit(91);
        return 'r';
      },
      then);
}

inline int count_files(const std::string& dir, const std::string& extension) {
  int n = 0;
  std::error_code ec;
  for (auto& e : std::filesystem::directory_iterator(dir, ec))
    n += e.path().extension() == extension;
  return n;
}

}  // namespace joule::test
