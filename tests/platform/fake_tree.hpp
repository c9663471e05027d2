// A fake kernel tree in a temporary directory, for JOULE_SYSFS_ROOT: cpufreq
// policies in the layouts real drivers use, powercap RAPL zones, hwmon and
// thermal zones. snapshot() captures every file's contents and mode so a
// test can check that the tree is exactly as it was.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>

#include "temp_dir.hpp"

namespace joule::test {

namespace fs = std::filesystem;

class FakeTree {
 public:
  // The tree lives in a joule_test::TempDir: a directory that cannot be made
  // fails the test at once (never root "", which would make real("/sys/...")
  // the machine's own sysfs), and only that directory is removed afterwards.
  FakeTree() : dir_("fake-sysfs"), root_(dir_.path()), state_dir_(root_ + "/state") {}
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  const std::string& root() const { return root_; }
  const std::string& state_dir() const { return state_dir_; }
  std::string real(const std::string& kernel_path) const { return root_ + kernel_path; }

  void write(const std::string& kernel_path, const std::string& content, mode_t mode = 0644) {
    const fs::path p = real(kernel_path);
    fs::create_directories(p.parent_path());
    if (fs::exists(p)) ::chmod(p.c_str(), 0644);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
    ::chmod(p.c_str(), mode);
  }
  std::string read(const std::string& kernel_path) const {
    std::ifstream in(real(kernel_path), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void remove(const std::string& kernel_path) { fs::remove(real(kernel_path)); }
  void link(const std::string& target, const std::string& kernel_link) {
    fs::create_directories(fs::path(real(kernel_link)).parent_path());
    fs::create_symlink(target, real(kernel_link));
  }

  // path relative to the root -> (contents or "->target", mode)
  using Snapshot = std::map<std::string, std::pair<std::string, unsigned>>;
  Snapshot snapshot() const {
    Snapshot out;
    for (auto& e : fs::recursive_directory_iterator(root_ + "/sys")) {
      const std::string rel = e.path().string().substr(root_.size());
      struct stat st {};
      ::lstat(e.path().c_str(), &st);
      if (e.is_symlink())
        out[rel] = {"->" + fs::read_symlink(e.path()).string(), 0};
      else if (e.is_regular_file())
        out[rel] = {read(rel), unsigned(st.st_mode & 07777)};
    }
    return out;
  }

  // A policy the userspace governor can drive (acpi-cpufreq style).
  void add_userspace_cpu(int cpu, const std::string& related,
                         const std::string& dir_override = "") {
    const std::string d = dir_override.empty() ? cpu_dir(cpu) : dir_override;
    write(d + "/scaling_driver", "acpi-cpufreq\n");
    write(d + "/scaling_governor", "ondemand\n");
    write(d + "/scaling_available_governors",
          "conservative ondemand userspace powersave performance\n");
    write(d + "/scaling_available_frequencies", "2400000 2000000 1600000 1200000 \n", 0444);
    write(d + "/scaling_setspeed", "<unsupported>\n");
    write(d + "/scaling_min_freq", "1200000\n");
    write(d + "/scaling_max_freq", "2400000\n");
    write(d + "/scaling_cur_freq", "2400000\n", 0444);
    write(d + "/cpuinfo_min_freq", "1200000\n", 0444);
    write(d + "/cpuinfo_max_freq", "2400000\n", 0444);
    write(d + "/related_cpus", related + "\n", 0444);
    write(d + "/affected_cpus", related + "\n", 0444);
  }
  // intel_pstate in active mode: no userspace governor, no frequency list.
  void add_pstate_cpu(int cpu, const std::string& related = "") {
    const std::string d = cpu_dir(cpu);
    write(d + "/scaling_driver", "intel_pstate\n");
    write(d + "/scaling_governor", "powersave\n");
    write(d + "/scaling_available_governors", "performance powersave\n");
    write(d + "/scaling_min_freq", "800000\n");
    write(d + "/scaling_max_freq", "3500000\n");
    write(d + "/scaling_cur_freq", "3100000\n", 0444);
    write(d + "/cpuinfo_min_freq", "800000\n", 0444);
    write(d + "/cpuinfo_max_freq", "3500000\n", 0444);
    write(d + "/related_cpus", (related.empty() ? std::to_string(cpu) : related) + "\n", 0444);
    write("/sys/devices/system/cpu/intel_pstate/status", "active\n", 0444);
  }
  static std::string cpu_dir(int cpu) {
    return "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq";
  }

 private:
  joule_test::TempDir dir_;
  std::string root_, state_dir_;
};

}  // namespace joule::test
