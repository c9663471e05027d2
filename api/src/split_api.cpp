// joule::work_splitter (joule/split.hpp): its impl is the card tasks
// layer's offload::SplitController (runtime/offload/tasks/split_controller.hpp);
// this file converts the public types and forwards.
#include <memory>

#include "joule/split.hpp"
#include "split_controller.hpp"

namespace joule {
namespace {

offload::DevicePower to_internal(const device_power& p) { return {p.busy_watts, p.idle_watts}; }
device_power to_public(const offload::DevicePower& p) { return {p.busy_watts, p.idle_watts}; }

offload::SplitSettings settings_of(const split_options& o) {
  return {o.objective, to_internal(o.host), to_internal(o.card), o.delta, o.delta_min, o.card_freq};
}

}  // namespace

struct work_splitter::impl : offload::SplitController {
  using SplitController::SplitController;
};

work_splitter::work_splitter(const split_options& opt)
    : p_(std::make_unique<impl>(settings_of(opt))) {}

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

}  // namespace joule
