#include "mpi_slack.hpp"

#include "energy_registry.hpp"

namespace joule::energy {

MpiSlackOptions mpi_slack_options(const Options& opt, bool can_lend) {
  return {opt.mpi_slack_s, opt.mpi_lend_s, can_lend};
}

MpiSlack::Action MpiSlack::on_call_enter(std::uint64_t now_ns) {
  if (depth_++ > 0) return Action::none;
  enter_ns_ = now_ns;
  slowed_ = lent_ = false;
  ++stats_.calls;
  return Action::none;
}

MpiSlack::Action MpiSlack::poll(std::uint64_t now_ns) {
  if (depth_ == 0 || lent_) return Action::none;
  const double waited = now_ns > enter_ns_ ? double(now_ns - enter_ns_) * 1e-9 : 0.0;
  // Lending wins over slowing: a lent CPU costs this process nothing.
  if (opt_.can_lend && waited >= opt_.lend_s) {
    if (!slowed_) acted_ns_ = now_ns;
    lent_ = true;
    ++stats_.lent;
    return Action::lend;
  }
  if (!slowed_ && waited >= opt_.slack_s) {
    acted_ns_ = now_ns;
    slowed_ = true;
    ++stats_.slowed;
    return Action::slow_down;
  }
  return Action::none;
}

MpiSlack::Action MpiSlack::on_call_exit(std::uint64_t now_ns) {
  if (depth_ == 0 || --depth_ > 0) return Action::none;
  if (!slowed_ && !lent_) return Action::none;
  if (now_ns > acted_ns_) stats_.slow_s += double(now_ns - acted_ns_) * 1e-9;
  return Action::restore;
}

namespace {

// The registry entry: the work happens inside libjoule-mpi through MpiSlack,
// so the controller's periodic policy has nothing to decide.
class MpiSlackPolicy final : public EnergyPolicy {
 public:
  const char* name() const override { return "mpi-slack"; }
  Trigger trigger() const override { return Trigger::periodic; }
  Decision decide(const Observation&) override { return {}; }
};

}  // namespace

std::unique_ptr<EnergyPolicy> make_mpi_slack(const Options&) {
  return std::make_unique<MpiSlackPolicy>();
}

}  // namespace joule::energy
