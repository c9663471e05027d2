// A CudaDevice's opening and closing, its description, energy and clocks
// (cuda_gpu.hpp).
#include <cmath>
#include <thread>

#include "cuda_gpu.hpp"
#include "joule/types.hpp"
#include "log.hpp"
#include "text.hpp"

namespace joule::cuda {

CudaDevice::CudaDevice(const CudaDriver& d, const CudaSettings& s, const CudaDeviceInfo& info)
    : d_(d), settings_(s), info_(info), residency_(d) {
  CUdevice dev = 0;
  d_.check(d_.cuDeviceGet(&dev, info_.index), "cuDeviceGet");
  d_.check(d_.cuDevicePrimaryCtxRetain(&ctx_, dev), "cuDevicePrimaryCtxRetain");
  try {
    CudaContextScope scope(d_, ctx_);
    for (int i = 0; i < s.streams; ++i) {
      CUstream st = nullptr;
      // Non-blocking: joule's streams do not wait for the legacy default
      // stream a program's own kernels may use (driver API, "Stream Management").
      d_.check(d_.cuStreamCreate(&st, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
      streams_.push_back(st);
    }
  } catch (...) {
    for (CUstream st : streams_) d_.cuStreamDestroy_v2(st);
    d_.cuDevicePrimaryCtxRelease_v2(dev);
    throw;
  }
  pending_.resize(streams_.size());
  meter_ = open_gpu_meter(s, info_.pci_bus_id);
  if (!meter_->energy_joules(&joules_at_open_)) joules_at_open_ = 0;
  if (s.sm_clock_mhz != 0) {
    const GpuClockChange c = meter_->set_sm_clock_mhz(s.sm_clock_mhz);
    if (!c.ok)
      core::log_warn("JOULE_CUDA_SM_CLOCK=" + std::to_string(s.sm_clock_mhz) + ": " + describe() +
                     " keeps its clocks: " + c.message);
  }
}

// Waits for what is in flight (a dead GPU makes the synchronisation fail,
// not hang), runs the outstanding completions, frees the copies, and puts
// the clocks back.
CudaDevice::~CudaDevice() {
  drain();
  try {
    CudaContextScope scope(d_, ctx_);
    residency_.clear();
    for (CUstream st : streams_) d_.cuStreamDestroy_v2(st);
  } catch (const std::exception& e) {  // the context is gone: so is what it held
    core::log_warn(describe() + ": closing: " + e.what());
  }
  meter_->restore();
  CUdevice dev = 0;
  if (d_.cuDeviceGet(&dev, info_.index) == CUDA_SUCCESS) d_.cuDevicePrimaryCtxRelease_v2(dev);
}

void CudaDevice::drain() noexcept {
  try {
    CudaContextScope scope(d_, ctx_);
    for (CUstream st : streams_) d_.cuStreamSynchronize(st);
  } catch (...) {  // no context: the completions below report the events' errors
  }
  // Another thread may be polling: wait for it, then poll until every
  // stream's queue is empty (their events have completed or failed). A
  // poll that cannot run (the context is gone) fails what is left.
  while (in_flight_.load(std::memory_order_acquire) > 0) {
    try {
      poll_completions();
    } catch (...) {
      fail_pending(std::current_exception());
      return;
    }
    std::this_thread::yield();
  }
}

void CudaDevice::fail_pending(std::exception_ptr error) noexcept {
  std::vector<Pending> left;
  {
    std::lock_guard lk(m_);
    for (auto& q : pending_) {
      for (Pending& p : q) left.push_back(std::move(p));
      q.clear();
    }
    in_flight_.store(0, std::memory_order_release);
  }
  for (Pending& p : left) p.done(p.error ? p.error : error);
}

CudaEventRef CudaDevice::new_event() const {
  CUevent e = nullptr;
  // No timing: the cheapest event, which is all the ordering and the
  // completion polling need (driver API, cuEventCreate).
  d_.check(d_.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  const CudaDriver* d = &d_;
  return CudaEventRef(e, [d](CUevent ev) { d->cuEventDestroy_v2(ev); });
}

std::string CudaDevice::describe() const {
  const double gib = double(info_.total_bytes) / double(1ull << 30);
  return "cuda:" + std::to_string(info_.index) + " " + info_.name + " (sm_" +
         std::to_string(info_.cc_major) + std::to_string(info_.cc_minor) + ", " +
         std::to_string(info_.sm_count) + " SMs, " + core::format_number("%.1f", gib) + " GiB)";
}

offload::DeviceEnergy CudaDevice::energy() const {
  offload::DeviceEnergy e;
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - opened_).count();
  {
    std::lock_guard lk(m_);
    e.bytes_to_card = bytes_to_card_;
    e.bytes_to_host = bytes_to_host_;
    e.launches = launches_;
  }
  double j = 0;
  e.measured = meter_->energy_joules(&j);
  if (e.measured) e.joules = j - joules_at_open_;
  if (!meter_->power_watts(&e.watts)) e.watts = 0;
  return e;  // transfer_s stays 0: the copies overlap kernels and are not timed
}

std::vector<double> CudaDevice::frequencies() const {
  std::vector<double> out;
  for (int mhz : meter_->sm_clocks_mhz()) out.push_back(mhz / 1000.0);
  return out;
}

double CudaDevice::frequency() const { return meter_->sm_clock_mhz() / 1000.0; }

void CudaDevice::set_frequency(double ghz) {
  const int mhz = int(std::lround(ghz * 1000.0));
  const GpuClockChange c = meter_->set_sm_clock_mhz(mhz);
  if (!c.ok)
    throw joule::error(JOULE_ERR_INVALID, describe() + ": SM clock " + std::to_string(mhz) +
                                              " MHz refused: " + c.message);
}

}  // namespace joule::cuda
