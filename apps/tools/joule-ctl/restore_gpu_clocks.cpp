// `joule-ctl restore`'s GPU part: the clock records (nvml_clock_record.hpp)
// of joule processes that are gone, undone through NVML by the cuda layer's
// repair (nvml_clock_repair.hpp). A record is trusted under the same
// ownership rules as the CPU state files (state_check.hpp).
#include "commands.hpp"
#include "nvml_clock_repair.hpp"
#include "state_check.hpp"

namespace joule::ctl {

void restore_gpu_clocks(const GpuRestore& g, platform::RepairResult& r) {
  cuda::nvml::ClockRepairOptions o;
  o.nvml = g.nvml;
  o.include_live = g.options.include_live;
  o.dry_run = g.options.dry_run;
  const auto gpu = cuda::nvml::repair_clock_records(g.dir, o, &platform::read_trusted_state_text);
  r.repaired += gpu.repaired;
  r.failed += gpu.failed;
  r.live += gpu.live;
  r.refused += gpu.refused;
  r.messages.insert(r.messages.end(), gpu.messages.begin(), gpu.messages.end());
}

}  // namespace joule::ctl
