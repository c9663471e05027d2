// The one validator of state files, shared by the runtime's start-up repair
// and `joule-ctl restore`. A state file makes whoever reads it (often root)
// write files, and its folder may be chosen by another user (through
// XDG_RUNTIME_DIR under `sudo -E`), so it is acted on only when
//  - its folder is owned by the effective user and not group/other
//    writable, and the file itself is a regular file (not a symlink) owned
//    by that user with no group/other permission bits, of bounded size;
//  - every path it names resolves (no "..", no symlink escape) to a cpufreq
//    file under the sysfs root that joule itself writes;
//  - every content is what such a file holds (a frequency, a governor).
// Anything else is refused with the file and the reason, and left alone.
#pragma once

#include <optional>
#include <string>

#include "state_file.hpp"

namespace joule::platform {

// The kernel files joule changes, and so the only ones it restores.
inline constexpr const char* kRestorableFiles[] = {"scaling_governor", "scaling_setspeed",
                                                   "scaling_min_freq", "scaling_max_freq"};
inline constexpr std::size_t kMaxStateFileBytes = 10u << 20;  // 8192 files of the longest lines
inline constexpr std::size_t kMaxSavedFiles = 8192;

// A folder joule may keep state files in (see above); false with *why.
bool trusted_state_dir(const std::string& dir, std::string* why);
// Reads `dir`/`name` if the folder and the file pass the ownership checks.
std::optional<std::string> read_trusted_state_text(const std::string& dir, const std::string& name,
                                                   std::string* why);
// Checks one saved file; on success `path` becomes its resolved path, the
// one to write. `sysfs_root` as in JOULE_SYSFS_ROOT ("/" for the machine).
bool check_saved_file(SavedFile& f, const std::string& sysfs_root, std::string* why);
// The two stages of load_trusted_state: the file (ownership, size, parse,
// its name matching its pid), then what it names (check_saved_file each).
std::optional<StateRecord> read_owned_state(const std::string& dir, const std::string& name,
                                            std::string* why);
bool check_saved_files(StateRecord& rec, const std::string& sysfs_root, std::string* why);
// Both stages: the record to restore, or nullopt with *why giving the reason.
std::optional<StateRecord> load_trusted_state(const std::string& dir, const std::string& name,
                                              const std::string& sysfs_root, std::string* why);

}  // namespace joule::platform
