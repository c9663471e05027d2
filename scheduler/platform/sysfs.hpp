// Reads and writes of kernel files (cpufreq, powercap, hwmon, thermal) under
// a configurable root, so tests run the real backends against fake trees.
// Paths given to Sysfs are absolute kernel paths ("/sys/..."); the root is
// prefixed. Nothing here throws: a missing or unreadable file is nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace joule::platform {

class Sysfs {
 public:
  explicit Sysfs(std::string root = "/");

  const std::string& root() const noexcept { return root_; }
  // The real path of a kernel path under the root.
  std::string path(std::string_view kernel_path) const;
  bool exists(std::string_view kernel_path) const;
  // Whole contents, exactly as stored (for saving and restoring).
  std::optional<std::string> read_raw(std::string_view kernel_path) const;
  // Contents without trailing whitespace.
  std::optional<std::string> read(std::string_view kernel_path) const;
  std::optional<std::uint64_t> read_u64(std::string_view kernel_path) const;
  // A file joule may write: access(W_OK) and, as sysfs enforces even for
  // root, at least one write permission bit.
  bool writable(std::string_view kernel_path) const;
  // Replaces the contents; false (errno set) on failure.
  bool write(std::string_view kernel_path, std::string_view value) const;
  // Entry names of a directory (no "." or ".."), sorted; empty if absent.
  std::vector<std::string> list(std::string_view kernel_dir) const;
  // Canonical path (symlinks resolved), or the plain path if that fails.
  std::string canonical(std::string_view kernel_path) const;

 private:
  std::string root_;
};

// Async-signal-safe whole-file write of an absolute real path: open, write,
// close. Used by restore paths that may run in a signal handler.
bool write_file_raw(const char* real_path, const char* data, std::size_t len) noexcept;

// "0-3,8,10-11" (cpulist) or "0 1 2 3" (related_cpus) into CPU numbers.
std::vector<int> parse_cpu_set(std::string_view text);

}  // namespace joule::platform
