// joule::work_splitter (joule/split.hpp): its impl is the card tasks
// layer's card_tasks::SplitController (runtime/offload/tasks/split_controller.hpp);
// this file converts the public types and forwards.
#include <atomic>
#include <memory>
#include <string>

#include "cuda_device.hpp"
#include "joule/split.hpp"
#include "split_controller.hpp"

namespace joule {
namespace {

card_tasks::DevicePower to_internal(const device_power& p) { return {p.busy_watts, p.idle_watts}; }
device_power to_public(const card_tasks::DevicePower& p) { return {p.busy_watts, p.idle_watts}; }

card_tasks::SplitSettings settings_of(const split_options& o) {
  if (o.device != device::mic && o.device != device::cuda)
    throw error(JOULE_ERR_INVALID,
                "joule::work_splitter: device " + std::to_string(int(o.device)) +
                    " cannot take the second part (allowed: device::mic, device::cuda)");
  return {o.objective, to_internal(o.host),      to_internal(o.card), o.delta, o.delta_min,
          o.card_freq, o.device == device::cuda, o.device_num,        o.share};
}

// The stamp split_stamp_stream enqueues: the time the stream reached it.
void stamp_now(void* ns) {
  static_cast<std::atomic<std::int64_t>*>(ns)->store(detail::steady_ns());
}

}  // namespace

void detail::split_stamp_stream(std::atomic<std::int64_t>* ns) {
  // Outside a CUDA task body (none on this thread) nothing is stamped and
  // split_step falls back to the time the outputs came home.
  if (cuda::CudaKernelContext* c = cuda::current_cuda_context()) c->host_fn(stamp_now, ns);
}

struct work_splitter::impl : card_tasks::SplitController {
  using SplitController::SplitController;
};

work_splitter::work_splitter(const split_options& opt)
    : p_(std::make_unique<impl>(settings_of(opt))),
      device_(opt.device),
      device_num_(opt.device_num) {}

work_splitter::~work_splitter() = default;  // the controller restores the card's P-state

double work_splitter::card_share() const { return p_->card_share(); }
std::int64_t work_splitter::cut(std::int64_t n) const { return p_->cut(n); }
bool work_splitter::converged() const { return p_->converged(); }
device_power work_splitter::host_power() const { return to_public(p_->host_power()); }
device_power work_splitter::card_power() const { return to_public(p_->card_power()); }

void work_splitter::record(std::int64_t host_units, double host_s, std::int64_t card_units,
                           double card_s) {
  p_->record(host_units, host_s, card_units, card_s);
}

double work_splitter::card_freq_ghz() const { return p_->card_freq_ghz(); }
bool work_splitter::card_freq_settled() const { return p_->card_freq_settled(); }
device work_splitter::device() const { return device_; }
int work_splitter::device_num() const { return device_num_; }
std::string work_splitter::energy_source() const { return p_->energy_source(); }
std::string work_splitter::clocks() const { return p_->clocks(); }
void work_splitter::start_iteration() { p_->start_iteration(); }

split_totals work_splitter::totals() const {
  const card_tasks::SplitTotals& t = p_->totals();
  return {t.iterations, t.seconds, t.cpu_joules, t.gpu_joules, t.cpu_measured, t.gpu_measured};
}

}  // namespace joule
