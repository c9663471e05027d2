// jouled's durable state in its state folder, written before every change
// so that a killed service (kill -9, a crash) can still put the node back:
//  - joule-0-<pid>.state: the original contents of every kernel file it
//    changed, in the runtime's state file format (platform/state_file.hpp),
//    so `joule-ctl restore --state-dir DIR` can also undo it by hand;
//  - leases: one protocol line (service_protocol.hpp) per lease holding
//    CPUs, so a restarted service knows whom to wait for.
// Both are read back only through platform/state_check.hpp's rules (folder
// and file owned by root, no group/other bits; cpufreq paths under the
// sysfs root; numbers and governor names only).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "service_protocol.hpp"
#include "state_file.hpp"

namespace joule::service {

class StateStore {
 public:
  StateStore(std::string dir, std::string sysfs_root);
  // Creates the folder (0700) and checks it; false with *why.
  bool open(std::string* why);
  const std::string& dir() const noexcept { return dir_; }

  // Loads what earlier instances left: originals (merged, oldest kept) and
  // leases. Files that fail the checks are left alone, reasons in *messages.
  void load(std::vector<std::string>* messages);
  const std::vector<platform::service_client::Line>& loaded_leases() const {
    return loaded_leases_;
  }

  // Records `content` as the original of `real_path` unless one is kept.
  bool save(const std::string& real_path, const std::string& content, std::string* why);
  std::optional<std::string> original(const std::string& real_path) const;
  // The saved originals among `real_paths`, in the order they were saved.
  std::vector<platform::SavedFile> originals_of(const std::vector<std::string>& real_paths) const;
  void drop(const std::vector<std::string>& real_paths);
  bool empty() const noexcept { return order_.empty(); }
  std::vector<platform::SavedFile> all() const { return originals_of(order_); }

  // Writes both files (atomically); false with *why.
  bool write_originals(std::string* why);
  bool write_leases(const std::vector<platform::service_client::Line>& leases, std::string* why);

 private:
  std::string dir_, sysfs_root_;
  std::map<std::string, std::string> originals_;
  std::vector<std::string> order_;
  std::vector<platform::service_client::Line> loaded_leases_;
  std::vector<std::string> stale_files_;  // earlier instances' files, removed once ours is written
};

}  // namespace joule::service
