// GpuMeter through NVML (gpu_meter.hpp). Readings are NVML's documented
// device queries; clock changes try the locked clocks first
// (nvmlDeviceSetGpuLockedClocks, Volta and later), then the application
// clocks, and each change is recorded on disk before it is made
// (nvml_clock_record.hpp) so that `joule-ctl restore` can undo it if the
// process dies first.
#include <unistd.h>

#include <algorithm>
#include <mutex>

#include "config.hpp"
#include "gpu_meter.hpp"
#include "log.hpp"
#include "nvml_clock_record.hpp"
#include "nvml_clocks.hpp"
#include "process_identity.hpp"

namespace joule::cuda {
namespace {

using namespace nvml;

class UnreadMeter final : public GpuMeter {
 public:
  explicit UnreadMeter(std::string why) : why_(std::move(why)) {}
  std::string source() const override { return "none: " + why_; }
  bool energy_joules(double*) const override { return false; }
  bool power_watts(double*) const override { return false; }
  std::vector<int> sm_clocks_mhz() const override { return {}; }
  int sm_clock_mhz() const override { return 0; }
  GpuClockChange set_sm_clock_mhz(int) override { return {false, "no GPU meter: " + why_}; }
  void restore() noexcept override {}

 private:
  std::string why_;
};

class NvmlMeter final : public GpuMeter {
 public:
  NvmlMeter(const Library& lib, Device dev, const std::string& bus, std::string dir)
      : lib_(lib), dev_(dev), dir_(std::move(dir)) {
    record_.pid = ::getpid();
    record_.start_time = core::process_start_time(record_.pid);
    record_.bus_id = bus;
  }
  ~NvmlMeter() override { restore(); }

  std::string source() const override { return "nvml"; }
  bool energy_joules(double* j) const override {
    unsigned long long mj = 0;
    if (lib_.total_energy(dev_, &mj) != kSuccess) return false;
    *j = double(mj) / 1e3;
    return true;
  }
  bool power_watts(double* w) const override {
    unsigned mw = 0;
    if (lib_.power_usage(dev_, &mw) != kSuccess) return false;
    *w = double(mw) / 1e3;
    return true;
  }
  std::vector<int> sm_clocks_mhz() const override { return supported_sm_clocks(lib_, dev_); }
  int sm_clock_mhz() const override {
    unsigned mhz = 0;
    return lib_.clock_info(dev_, kClockSm, &mhz) == kSuccess ? int(mhz) : 0;
  }
  GpuClockChange set_sm_clock_mhz(int mhz) override;
  void restore() noexcept override;

 private:
  GpuClockChange apply(unsigned mhz);
  bool save_record(std::string* warning);

  const Library& lib_;
  Device dev_;
  std::string dir_;
  std::mutex mu_;
  ClockRecord record_;  // what this meter changed (locked, applications)
};

GpuClockChange NvmlMeter::set_sm_clock_mhz(int mhz) {
  const std::vector<int> allowed = sm_clocks_mhz();
  if (mhz <= 0 ||
      (!allowed.empty() && std::find(allowed.begin(), allowed.end(), mhz) == allowed.end()))
    return {false, std::to_string(mhz) + " MHz is not a supported SM clock of GPU " +
                       record_.bus_id + " (allowed: " + clock_list(allowed) + ")"};
  std::lock_guard lock(mu_);
  return apply(unsigned(mhz));
}

// The record is written before each change: a change without a record
// could outlive a killed process.
GpuClockChange NvmlMeter::apply(unsigned mhz) {
  std::string warning;
  const ClockRecord before = record_;
  record_.locked = true;
  save_record(&warning);
  const Return locked = lib_.set_locked_clocks(dev_, mhz, mhz);
  if (locked == kSuccess) return {true, warning};
  record_.locked = before.locked;
  std::string why = "nvmlDeviceSetGpuLockedClocks(" + std::to_string(mhz) + ", " +
                    std::to_string(mhz) + "): " + lib_.error(locked);
  unsigned mem = 0, sm = 0;
  Return app = lib_.applications_clock(dev_, kClockMem, &mem);
  if (app == kSuccess) {
    if (!record_.applications) {
      lib_.applications_clock(dev_, kClockGraphics, &sm);
      record_.applications = true;
      record_.app_mem_mhz = mem;
      record_.app_sm_mhz = sm;
      save_record(&warning);
    }
    app = lib_.set_applications_clocks(dev_, mem, mhz);
    if (app == kSuccess) return {true, warning};
    if (!before.applications) record_ = ClockRecord{before};
    why += "; nvmlDeviceSetApplicationsClocks(" + std::to_string(mem) + ", " + std::to_string(mhz) +
           "): " + lib_.error(app);
  } else {
    why += "; nvmlDeviceGetApplicationsClock: " + lib_.error(app);
  }
  record_.locked = before.locked;
  if (record_.locked || record_.applications)
    save_record(&warning);
  else
    remove_clock_record(dir_, record_);
  if (locked == kErrorNoPermission || app == kErrorNoPermission)
    why += " (GPU " + record_.bus_id + ": needs root or `nvidia-smi -acp UNRESTRICTED`)";
  return {false, why};
}

bool NvmlMeter::save_record(std::string* warning) {
  std::string error;
  if (write_clock_record(dir_, record_, &error)) return true;
  if (warning->empty())
    *warning = "no GPU clock record (`joule-ctl restore` cannot undo): " + error;
  core::warn_once("nvml-clock-record", *warning);
  return false;
}

void NvmlMeter::restore() noexcept {
  std::lock_guard lock(mu_);
  if (!record_.locked && !record_.applications) return;
  try {
    std::string error;
    if (!undo_clock_record(lib_, record_, &error))
      core::log_warn("GPU " + record_.bus_id + ": clocks not restored: " + error);
  } catch (...) {  // out of memory for the message: the undo itself has run
  }
  remove_clock_record(dir_, record_);
  record_.locked = record_.applications = false;
}

}  // namespace

std::unique_ptr<GpuMeter> open_gpu_meter(const CudaSettings& s, const std::string& pci_bus_id) {
  std::string why;
  const Library* lib = load_library(s.nvml, &why);
  if (!lib) return std::make_unique<UnreadMeter>(why);
  Device dev = nullptr;
  if (const Return rc = lib->handle_by_bus_id(pci_bus_id.c_str(), &dev); rc != kSuccess)
    return std::make_unique<UnreadMeter>("nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id +
                                         "): " + lib->error(rc));
  std::string dir = s.state_dir.empty() ? core::Config::default_state_dir() : s.state_dir;
  return std::make_unique<NvmlMeter>(*lib, dev, pci_bus_id, std::move(dir));
}

}  // namespace joule::cuda
