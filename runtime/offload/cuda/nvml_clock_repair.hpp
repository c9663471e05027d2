// Undoing the GPU clock records (nvml_clock_record.hpp) that processes left
// behind when they died: `joule-ctl restore` for every GPU, and the runtime
// for its own GPUs the first time it opens them, as the platform does for
// the CPUs' state files. Whether a file may be trusted is the caller's rule
// (the platform's ownership checks, state_check.hpp), passed in, since the
// cuda layer does not see the platform layer.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace joule::cuda::nvml {

// The text of `dir/name`, or nullopt with *why when it is not to be trusted.
using TrustedReader = std::function<std::optional<std::string>(
    const std::string& dir, const std::string& name, std::string* why)>;

struct ClockRepairOptions {
  std::string nvml;                  // the NVML library to load (JOULE_NVML_LIBRARY)
  std::vector<std::string> bus_ids;  // only these GPUs' records (empty: all)
  bool include_live = false;         // also those of running processes (not this one)
  bool dry_run = false;              // only say what would be reset
};

struct ClockRepairResult {
  int repaired = 0;  // records undone and removed
  int failed = 0;    // records NVML could not undo (kept for a later try)
  int live = 0;      // records of running processes, and dead ones waiting for them
  int refused = 0;   // records not trusted (left alone)
  std::vector<std::string> messages;  // "reset …", "could not reset …", "refused …"
};

// A dead owner's record is undone only when no running process holds a
// record for the same GPU: the clocks are the GPU's, and undoing the dead
// one's change would undo the live one's too. It waits for that one to stop
// (include_live resets both).
ClockRepairResult repair_clock_records(const std::string& dir, const ClockRepairOptions& options,
                                       const TrustedReader& read);

}  // namespace joule::cuda::nvml
