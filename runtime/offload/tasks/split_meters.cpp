// The splitter's per-iteration energy: deltas of the GPU's NVML counter and
// the platform's measured CPU energy.
#include "split_meters.hpp"

#include "platform.hpp"

namespace joule::card_tasks {
namespace {

class BorrowedMeter final : public cuda::GpuMeter {
 public:
  explicit BorrowedMeter(cuda::GpuMeter& m) : m_(m), found_(m.sm_clock_mhz()) {}
  std::string source() const override { return m_.source(); }
  bool energy_joules(double* j) const override { return m_.energy_joules(j); }
  bool power_watts(double* w) const override { return m_.power_watts(w); }
  std::vector<int> sm_clocks_mhz() const override { return m_.sm_clocks_mhz(); }
  int sm_clock_mhz() const override { return m_.sm_clock_mhz(); }
  cuda::GpuClockChange set_sm_clock_mhz(int mhz) override {
    cuda::GpuClockChange c = m_.set_sm_clock_mhz(mhz);
    changed_ = changed_ || c.ok;
    return c;
  }
  void restore() noexcept override {
    if (changed_ && found_ > 0 && m_.sm_clock_mhz() != found_) m_.set_sm_clock_mhz(found_);
    changed_ = false;
  }

 private:
  cuda::GpuMeter& m_;
  int found_;
  bool changed_ = false;
};

}  // namespace

std::unique_ptr<cuda::GpuMeter> borrow_gpu_meter(cuda::GpuMeter& shared) {
  return std::make_unique<BorrowedMeter>(shared);
}

SplitMeters::SplitMeters(std::unique_ptr<cuda::GpuMeter> gpu) : gpu_(std::move(gpu)) {}

SplitMeters::~SplitMeters() = default;

// The platform's chips' measured joules; nothing when it only models them
// (EnergyReading::chips_measured).
std::optional<double> SplitMeters::cpu_now() const {
  platform::Platform* p = platform::current_platform();
  if (!p) return std::nullopt;
  const platform::EnergyReading r = p->read_energy();
  if (!r.chips_measured) return std::nullopt;
  return r.total_joules();
}

std::optional<double> SplitMeters::gpu_now() const {
  double j = 0;
  if (gpu_ && gpu_->energy_joules(&j)) return j;
  return std::nullopt;
}

void SplitMeters::start() {
  cpu0_ = cpu_now();
  gpu0_ = gpu_now();
  started_ = true;
}

SplitEnergy SplitMeters::read() {
  SplitEnergy e;
  if (!started_) return e;
  started_ = false;
  if (const auto c = cpu_now(); c && cpu0_) e.cpu = *c - *cpu0_;
  if (const auto g = gpu_now(); g && gpu0_) e.gpu = *g - *gpu0_;
  return e;
}

std::string SplitMeters::source() const {
  std::string cpu = "model";
  if (platform::Platform* p = platform::current_platform()) {
    const platform::EnergyReading r = p->read_energy();
    if (r.chips_measured) cpu = r.source;
  }
  if (!gpu_) return "card: model, cpu: " + cpu;
  double j = 0;
  const std::string gpu =
      gpu_->energy_joules(&j) ? gpu_->source() : "model (" + gpu_->source() + ")";
  return "gpu: " + gpu + ", cpu: " + cpu;
}

}  // namespace joule::card_tasks
