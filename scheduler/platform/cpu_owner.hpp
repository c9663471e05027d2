// Per-CPU owner records: which joule process first changed a CPU's
// frequency files and so holds their true originals. Without them a second
// DVFS process would save the first one's settings as "originals" and,
// exiting last, pin them for good. A record is "joule-cpu<N>.owner" in the
// state folder, holding "<pid> <start time>" (/proc/<pid>/stat field 22, so
// a reused pid is not mistaken for the owner). Claims and releases run
// under an flock of "joule-owners.lock" in the same folder.
#pragma once

#include <string>
#include <vector>

namespace joule::platform {

// "joule-cpu<N>.owner"
std::string owner_file_name(int cpu);

struct ClaimResult {
  bool ok = false;
  int holder = 0;   // the live process that holds one of the CPUs, if that is why
  std::string why;  // why not, naming the CPU and the holder or the file
};

// Claims every CPU of `cpus` for this process, all or none. A CPU already
// ours or without a record is free; one whose owner is alive is not. A dead
// owner's record is taken over after its state file is restored (files
// under `sysfs_root` only, as in repair_stale_states); if that state file
// stays (refused or not restorable) the CPU is not free either.
ClaimResult claim_cpus(const std::string& dir, const std::vector<int>& cpus,
                       const std::string& sysfs_root);
// Removes this process's records of `cpus` (others' are left alone).
void release_cpus(const std::string& dir, const std::vector<int>& cpus);

}  // namespace joule::platform
