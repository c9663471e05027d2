// The GPUs' section of the end-of-run report (JOULE_REPORT=1): per GPU its
// CUDA tasks, bytes to and from it, the data kept on it (copies in, resident
// hits, copies back), its energy as NVML measured it or why it was not
// measured, and its SM clock. Counts are the run's: GPUs kept from an
// earlier run start from what they had then. Copies back at the runtime's
// stop come after the report and are not in it.
#include <cstdio>
#include <map>
#include <ostream>
#include <string>

#include "gpu_devices.hpp"

namespace joule::card_tasks {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

class GpuReport final : public core::Observer {
 public:
  GpuReport() {
    for (const GpuStatus& s : gpu_statuses()) base_[s.info.index] = s;
  }
  const char* name() const override { return "cuda"; }
  void report(std::ostream& os) const override {
    const std::vector<GpuStatus> now = gpu_statuses();
    if (now.empty()) return;  // no CUDA task, no cuda_devices(): nothing opened
    os << "== cuda ==\n";
    for (const GpuStatus& s : now) line(os, s);
  }

 private:
  void line(std::ostream& os, const GpuStatus& s) const {
    auto it = base_.find(s.info.index);
    const GpuStatus b = it == base_.end() ? GpuStatus{} : it->second;
    const offload::DeviceEnergy& e = s.energy;
    os << "  GPU " << s.info.index << " (" << s.info.name << ", " << s.info.pci_bus_id
       << "): CUDA tasks " << s.tasks - b.tasks << ", bytes to GPU "
       << e.bytes_to_card - b.energy.bytes_to_card << ", to host "
       << e.bytes_to_host - b.energy.bytes_to_host << ", copies in "
       << s.coherence.copies_in - b.coherence.copies_in << ", resident hits "
       << s.coherence.resident_hits - b.coherence.resident_hits << ", copies back "
       << s.coherence.copies_back - b.coherence.copies_back << "\n    energy: ";
    if (e.measured)
      os << fmt("%.3f", e.joules - b.energy.joules) << " J measured (NVML)";
    else
      os << "not measured (" << s.meter << ")";
    os << ", SM clock: ";
    if (s.sm_clock_mhz > 0)
      os << s.sm_clock_mhz << " MHz\n";
    else
      os << "unknown\n";
  }

  std::map<int, GpuStatus> base_;
};

}  // namespace

std::unique_ptr<core::Observer> make_gpu_report() { return std::make_unique<GpuReport>(); }

}  // namespace joule::card_tasks
