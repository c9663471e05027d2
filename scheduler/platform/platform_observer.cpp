// The platform layer as a runtime observer, and its factory. The factory
// also repairs what killed processes left (state files), at every start.
#include <iostream>

#include "config.hpp"
#include "log.hpp"
#include "observer.hpp"
#include "platform.hpp"
#include "platform_listener.hpp"
#include "platform_observer.hpp"
#include "restore_guard.hpp"
#include "state_file.hpp"

namespace joule::platform {
namespace {

class PlatformObserver final : public core::Observer {
 public:
  explicit PlatformObserver(std::unique_ptr<Platform> p) : p_(std::move(p)), w_(p_->workers()) {}
  const char* name() const override { return "platform"; }

  void on_runtime_start(const core::RunInfo& run) override { p_->begin(run); }
  void on_runtime_stop(const core::RunInfo&) override { p_->end(); }
  // Only the process's own workers have slots: threads that are not workers
  // (-1) and workers on borrowed CPUs (beyond the slots) are not modelled.
  void on_worker_start(int worker, int) override {
    if (w_.has_slot(worker)) w_.worker_start(worker);
  }
  void on_worker_stop(int worker) override {
    if (w_.has_slot(worker)) w_.worker_stop(worker);
  }
  void on_task_start(const core::Task& t, int worker, std::uint64_t) override {
    if (w_.has_slot(worker)) w_.task_start(t, worker);
  }
  void on_task_end(const core::Task& t, int worker, std::uint64_t s, std::uint64_t e) override {
    if (w_.has_slot(worker)) w_.task_end(t, worker, s, e);
  }
  void on_idle(int worker, bool sleeping, std::uint64_t now) override {
    if (w_.has_slot(worker)) w_.idle(worker, sleeping, now);
  }
  // A parked worker runs nothing of ours: idle, as far as energy goes.
  void on_parked(int worker, bool parked, std::uint64_t now) override {
    on_idle(worker, parked, now);
  }
  void on_iteration_boundary(std::uint64_t iteration, std::uint64_t now) override {
    p_->iteration(iteration, now);
  }
  void report(std::ostream& os) const override { p_->report(os); }
  bool wants_idle_cores_asleep() const override { return p_->frequencies().can_set(); }

 private:
  std::unique_ptr<Platform> p_;
  WorkerAccounts& w_;  // p_'s, on the task path
};

void repair_stale(const core::Config& cfg) {
  const PlatformSettings& ps = cfg.get<PlatformSettings>();
  const std::string dir = ps.state_folder();
  const RepairResult r = repair_stale_states(dir, {ps.sysfs_root});
  if (r.repaired == 0 && r.failed == 0 && r.refused == 0) return;
  for (const auto& m : r.messages) {
    if (m.rfind("refused", 0) == 0)
      core::log_warn(m);
    else
      core::log_info(m + " (state file in " + dir + ")");
  }
}

}  // namespace

std::unique_ptr<core::Observer> make_platform_observer(const core::Config& cfg,
                                                       const ListenerFactory& listener) {
  repair_stale(cfg);
  const PlatformSettings& ps = cfg.get<PlatformSettings>();
  const std::string dir = ps.state_folder();
  if (!platform_wanted(cfg)) {
    if (cfg.dump)
      core::log_info(std::string("platform: off (JOULE_DVFS=") +
                     core::choice_name(core::Choices<DvfsKind>(kDvfsKinds), ps.dvfs) +
                     ", nothing else asks for it)");
    return nullptr;
  }
  RestoreGuard::instance().set_state_dir(dir);
  auto p = std::make_unique<Platform>(cfg);
  if (listener) p->set_listener(listener(*p, cfg));
  if (cfg.dump) core::log_info(p->describe());
  if (!p->active()) return nullptr;
  return std::make_unique<PlatformObserver>(std::move(p));
}

}  // namespace joule::platform
