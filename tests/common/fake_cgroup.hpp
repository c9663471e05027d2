// A fake /proc/self/cgroup, /proc/self/mountinfo and cgroup tree in a
// temporary directory: the root that core::read_cpu_quota and
// JOULE_CGROUP_ROOT read instead of the machine's (never the real /sys).
//
//   joule_test::FakeCgroup fake;
//   fake.v2("/job/step");                    // the process in /job/step, cgroup2 at /sys/fs/cgroup
//   fake.cpu_max("/job", "150000 100000");   // /sys/fs/cgroup/job/cpu.max: 1.5 CPUs
//   read_cpu_quota(fake.root());
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "temp_dir.hpp"

namespace joule_test {

class FakeCgroup {
 public:
  static constexpr const char* kV2Mount = "/sys/fs/cgroup";

  const std::string& root() const { return dir_.path(); }

  // Writes `text` to `path` below the root (an absolute path such as
  // "/proc/self/cgroup"), making the directories on the way.
  void write(std::string_view path, std::string_view text) const {
    const std::filesystem::path file = dir_.path() + std::string(path);
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }

  // A cgroup v2 machine: the process in `group`, the hierarchy mounted at
  // /sys/fs/cgroup (as systemd mounts it).
  void v2(std::string_view group) const {
    write("/proc/self/cgroup", "0::" + std::string(group) + "\n");
    write("/proc/self/mountinfo",
          "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
          "30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 "
          "cgroup2 rw,nsdelegate\n");
  }

  // cpu.max of a v2 group ("/" is the hierarchy's root).
  void cpu_max(std::string_view group, std::string_view text) const {
    write(std::string(kV2Mount) + (group == "/" ? "" : std::string(group)) + "/cpu.max", text);
  }

 private:
  TempDir dir_{"cgroup"};
};

}  // namespace joule_test
