#include "cpu_manager.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "config.hpp"

namespace joule::core {
namespace {

// Keeps the process's CPUs. A worker an energy policy parked (retired)
// sleeps here until woken or the timeout passes.
class OwnCpusManager final : public CpuManager {
 public:
  const char* name() const override { return "own"; }
  void wait_for_change(int, unsigned timeout_us) override {
    std::unique_lock lock(mu_);
    const std::uint64_t seen = changes_;
    cv_.wait_for(lock, std::chrono::microseconds(timeout_us), [&] { return changes_ != seen; });
  }
  void wake(int) override {
    {
      std::lock_guard guard(mu_);
      ++changes_;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::uint64_t changes_ = 0;
};

CpuManagerFactory g_lending = nullptr;

}  // namespace

void set_lending_factory(CpuManagerFactory make) noexcept { g_lending = make; }

std::unique_ptr<CpuManager> make_cpu_manager(const Config& cfg) {
  if (g_lending)
    if (auto m = g_lending(cfg)) return m;  // nullptr: lending is off
  return std::make_unique<OwnCpusManager>();
}

}  // namespace joule::core
