// The record of one GPU's clock changes, kept on disk while they last so
// that a process killed before it could restore does not leave the GPU
// locked: `joule-ctl restore` undoes the records of dead owners through
// NVML (docs/offload-gpu-energy.md, "GPU energy and clocks"). The GPU's own small
// record, beside the CPU frequencies' state files (same folder, mode 0600)
// but with its own name and format, since the cuda layer does not see the
// platform layer.
#pragma once

#include <optional>
#include <string>

#include "nvml_library.hpp"

namespace joule::cuda::nvml {

struct ClockRecord {
  int pid = 0;                        // the owner,
  unsigned long long start_time = 0;  // and its start (process_identity.hpp)
  std::string bus_id;                 // "0000:3B:00.0"
  bool locked = false;                // nvmlDeviceSetGpuLockedClocks was called
  bool applications = false;          // nvmlDeviceSetApplicationsClocks was called,
  unsigned app_mem_mhz = 0;           //   over these application clocks
  unsigned app_sm_mhz = 0;            //   (0 0: unknown, reset them instead)
};

// "joule-gpu-<euid>-<pid>-<bus id with ':' and '.' as '_'>.clocks"
std::string clock_record_name(int pid, const std::string& bus_id);
bool is_clock_record_name(const std::string& name);
std::string clock_record_text(const ClockRecord& r);
// Strict: the header, then pid, start, bus and change lines, nothing else.
std::optional<ClockRecord> parse_clock_record(const std::string& text);
// Creates `dir` (0700) if needed and writes the record (0600, no symlink
// followed); false with *error.
bool write_clock_record(const std::string& dir, const ClockRecord& r, std::string* error);
void remove_clock_record(const std::string& dir, const ClockRecord& r) noexcept;
// Undoes what `r` records on its GPU; false with *error naming the call.
bool undo_clock_record(const Library& lib, const ClockRecord& r, std::string* error);

}  // namespace joule::cuda::nvml
