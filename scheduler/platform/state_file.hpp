// The state file: every kernel file joule changed, with its original
// contents, written before the change. A process killed before it could
// restore leaves its file behind; the next start (or `joule-ctl restore`)
// writes the originals back. Self-contained (libc only) so joule-ctl can
// build it without the runtime.
#pragma once

#include <optional>
#include <string>
#include <vector>

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

// "joule-<uid>-<pid>.state"
std::string state_file_name(int pid);
// Atomic replace (temporary file + rename), mode 0600; creates `dir` (0700).
bool write_state_file(const std::string& dir, const StateRecord& rec, std::string* error);
std::optional<StateRecord> read_state_file(const std::string& path);
// Start time of a process in clock ticks since boot; 0 if it does not exist.
unsigned long long process_start_time(int pid);
bool process_alive(int pid, unsigned long long start_time);

// Writes the originals back, newest first, then rewrites whatever still
// differs (min/max frequency pairs may need the other order). A file that
// rejects the write but already reads as the original counts as restored.
// Returns the number of files that could not be restored.
int restore_files(const std::vector<SavedFile>& files, std::vector<std::string>* errors);

struct RepairResult {
  int repaired = 0;  // state files whose changes were undone
  int failed = 0;    // files that could not be restored
  int live = 0;      // state files of processes still running (left alone)
  std::vector<std::string> messages;
};
// Undoes the state files in `dir` of processes that are gone (all of them
// with include_live, except this process's own). dry_run only reports.
RepairResult repair_stale_states(const std::string& dir, bool include_live = false,
                                 bool dry_run = false);

}  // namespace joule::platform
