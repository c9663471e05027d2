// The node's frequency domains as jouled drives them: the CPUs of one
// cpufreq policy (platform/cpufreq_policy.hpp), its P-states, and how to
// set one. Writing goes through an OriginalStore so that every file's first
// contents are saved, durably, before it changes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sysfs.hpp"

namespace joule::service {

struct Domain {
  int id = 0;
  std::vector<int> cpus;             // sorted
  std::vector<std::string> dirs;     // kernel paths of its policy folders (one per policy)
  std::vector<std::uint32_t> table;  // kHz ascending
  bool userspace = false;            // scaling_setspeed; else min = max pinned
};

// One file change, for the audit log.
struct FileChange {
  std::string file;  // real path
  std::string old_value, new_value;
};

// Saves a real path's original contents before its first write; false
// refuses the write.
using SaveOriginal =
    std::function<bool(const std::string& real_path, const std::string& content, std::string* why)>;

class DomainTable {
 public:
  explicit DomainTable(platform::Sysfs fs) : fs_(std::move(fs)) {}
  // Reads the policies under the sysfs root; *why lists what was left out.
  void discover(std::string* why);

  const std::vector<Domain>& domains() const noexcept { return domains_; }
  const Domain* of_cpu(int cpu) const;
  const platform::Sysfs& sysfs() const noexcept { return fs_; }
  // The real paths of the files set() may write for `d`.
  std::vector<std::string> files_of(const Domain& d) const;
  // The highest frequency the domain's original files allow: what it runs
  // at, at most, when the service leaves it alone.
  std::uint32_t original_ceiling(
      const Domain& d,
      const std::function<std::optional<std::string>(const std::string&)>& original_of) const;

  // Runs the domain at `khz`; each changed file goes to *changes. False
  // with *why when a save or write failed.
  bool set(const Domain& d, std::uint32_t khz, const SaveOriginal& save,
           std::vector<FileChange>* changes, std::string* why) const;
  // scaling_cur_freq of the domain's first CPU, if readable.
  std::optional<std::uint32_t> current_khz(const Domain& d) const;

 private:
  bool put(const std::string& file, const std::string& value, const SaveOriginal& save,
           std::vector<FileChange>* changes, std::string* why) const;

  platform::Sysfs fs_;
  std::vector<Domain> domains_;
};

// The allowed P-state nearest to `khz` among `table` within [lo, hi]
// (hi 0 = no bound); nullopt when none lies within.
std::optional<std::uint32_t> snap_pstate(const std::vector<std::uint32_t>& table, std::uint32_t khz,
                                         std::uint32_t lo, std::uint32_t hi);
// In effect: within one P-state step or 5 % of the target.
bool within_step(const std::vector<std::uint32_t>& table, std::uint32_t target,
                 std::uint32_t effective);

}  // namespace joule::service
