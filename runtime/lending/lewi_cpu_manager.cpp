// The runtime's CpuManager over the process's lending session
// (JOULE_LEWI=local|node). A thin adapter: the policy lives in Session.
#include <cstdio>

#include "config.hpp"
#include "cpu_manager.hpp"
#include "joule/types.hpp"
#include "lewi_cpu_manager.hpp"
#include "lewi_session.hpp"

namespace joule::lending {

using namespace joule::core;
namespace {

using lending::Session;

class LewiCpuManager final : public CpuManager {
 public:
  explicit LewiCpuManager(const Config& cfg) : opts_(lending::options_from(cfg)) {}
  ~LewiCpuManager() override { LewiCpuManager::stop(); }

  bool lends() const override { return true; }
  const char* name() const override {
    if (opts_.mode == "local") return opts_.policy == "mpi" ? "lending-local-mpi" : "lending-local";
    return opts_.policy == "mpi" ? "lending-node-mpi" : "lending-node";
  }

  void start(const std::vector<int>& owned) override {
    try {
      s_ = Session::join(opts_, owned);
    } catch (const lending::TableError& e) {
      throw joule::error(JOULE_ERR_CONFIG, e.what());
    }
    s_->attach_runtime(true);
    if (!owned.empty()) s_->set_home_cpu(owned.front());  // worker 0's CPU
    // More workers than CPUs (a testing mode): a CPU shared by two workers is
    // never lent, since one may run while the other is idle.
    for (std::size_t i = 0; i < owned.size(); ++i)
      for (std::size_t j = i + 1; j < owned.size(); ++j)
        if (owned[i] == owned[j]) s_->never_lend(owned[i]);
  }
  void stop() override {
    if (!s_) return;
    s_->attach_runtime(false);
    s_->set_home_cpu(-1);
    s_->return_all();  // the workers have stopped: nothing runs on borrowed CPUs
    s_.reset();        // the last reference leaves the table
  }
  void abandon() override {
    // The session stays: workers may still use it until the process ends.
    if (s_) s_->return_all();
  }

  void set_nearness(const std::vector<std::vector<int>>& levels) override {
    if (s_) s_->set_nearness(levels);
  }

  bool release_idle(int cpu) override { return s_ && s_->release_idle(cpu); }
  bool must_return(int cpu) override { return s_ && s_->must_return(cpu); }
  void acquire(int n, std::vector<int>& got) override {
    if (s_) s_->acquire(n, got);
  }
  void enter_blocking(int keep) override {
    if (s_) s_->enter_blocking(keep);
  }
  void leave_blocking() override {
    if (s_) s_->leave_blocking();
  }
  bool poll_mask(std::vector<int>& mask) override { return s_ && s_->poll_mask(mask); }
  bool usable(int cpu) override { return !s_ || s_->usable(cpu); }
  void wait_for_change(int cpu, unsigned timeout_us) override {
    if (s_) s_->wait_for_change(cpu, timeout_us);
  }
  void wake(int cpu) override {
    if (s_) s_->wake(cpu);
  }

 private:
  lending::LewiOptions opts_;
  std::shared_ptr<Session> s_;
};

}  // namespace

std::unique_ptr<CpuManager> make_lewi_cpu_manager(const Config& cfg) {
  if (cfg.get<LendingSettings>().mode == LewiMode::off) return nullptr;
  return std::make_unique<LewiCpuManager>(cfg);
}

}  // namespace joule::lending
