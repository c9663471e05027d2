// The state file: every kernel file joule changed, with its original
// contents, written before the change. A process killed before it could
// restore leaves its file behind; the next start (or `joule-ctl restore`)
// writes the originals back. Self-contained (libc only) so joule-ctl can
// build it without the runtime.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "process_identity.hpp"

namespace joule::platform {

struct SavedFile {
  std::string path;     // absolute real path
  std::string content;  // exactly as found
};

struct StateRecord {
  int pid = 0;
  unsigned long long start_time = 0;  // /proc/<pid>/stat field 22, against pid reuse
  std::vector<SavedFile> files;       // in the order they were first changed
};

// "joule-<euid>-<pid>.state"
std::string state_file_name(int pid);
// Atomic replace (temporary file + rename), mode 0600; creates `dir` (0700)
// and refuses one that others may write (state_check.hpp).
bool write_state_file(const std::string& dir, const StateRecord& rec, std::string* error);
// Atomic replace of `path` with `text` (temporary file + rename), mode
// 0600; the caller has checked the folder.
bool write_private_file(const std::string& path, const std::string& text, std::string* error);
// The text of a state file, strictly: the header, one pid line, file lines
// of lowercase hex, nothing else. Says nothing about whether to trust it
// (load_trusted_state does).
std::optional<StateRecord> parse_state_text(const std::string& text);
// A record's owner: pid and start time (process_identity.hpp).
using core::process_alive;
using core::process_start_time;

// Writes the originals back, newest first, then rewrites whatever still
// differs (min/max frequency pairs may need the other order). A file that
// rejects the write but already reads as the original counts as restored.
// Returns the number of files that could not be restored.
int restore_files(const std::vector<SavedFile>& files, std::vector<std::string>* errors);

struct RepairResult {
  int repaired = 0;  // state files whose changes were undone
  int failed = 0;    // files that could not be restored
  int live = 0;      // state files of processes still running (left alone)
  int refused = 0;   // state files that failed load_trusted_state (left alone)
  std::vector<std::string> messages;
};
struct RepairOptions {
  std::string sysfs_root = "/";  // what the saved paths must lie under
  bool include_live = false;     // also processes still running (not this one)
  bool dry_run = false;          // only report
};
// Undoes the state files in `dir` of processes that are gone, each only if
// load_trusted_state accepts it.
RepairResult repair_stale_states(const std::string& dir, const RepairOptions& options);
// The same for the state file of one process, if it has one.
RepairResult repair_state_of(const std::string& dir, int pid, const std::string& sysfs_root);

}  // namespace joule::platform
