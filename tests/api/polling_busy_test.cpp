// Polling services keep running while every worker is busy in a long task
// body (runtime/engine/polling_services.hpp: the ticker). Each worker runs
// one task that spins until a polling service releases it, and the service
// releases them only after it has run several times with all of them
// started: no worker is idle and no task ends meanwhile, so only the
// runtime's own timer can call it. 1, 2, 4 and 8 workers (more than this
// machine's CPUs); a task gives up after 20 s so a service that never runs
// fails the test instead of hanging it.
#include <joule/nanos6/nanos6.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

#include "joule/joule.hpp"

namespace {

struct AllBusy {
  int tasks = 0;
  std::atomic<int> started{0};
  std::atomic<int> rounds_all_busy{0};  // service calls with every task running
  std::atomic<bool> released{false};
  std::atomic<int> gave_up{0};
};

constexpr int kRoundsBeforeRelease = 5;

int release_after_rounds(void* p) {
  auto& b = *static_cast<AllBusy*>(p);
  if (b.started.load() < b.tasks) return 0;
  if (b.rounds_all_busy.fetch_add(1) + 1 >= kRoundsBeforeRelease) b.released.store(true);
  return 0;
}

void spin_until_released(AllBusy& b) {
  b.started.fetch_add(1);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (long i = 0; !b.released.load(std::memory_order_acquire); ++i) {
    if ((i & 1023) == 0 && std::chrono::steady_clock::now() > give_up) {
      b.gave_up.fetch_add(1);
      return;
    }
  }
}

TEST(PollingWhileBusy, OnlyTheServiceEndsTheLongTasks) {
  for (int workers : {1, 2, 4, 8}) {
    joule::runtime rt({{"JOULE_WORKERS", std::to_string(workers)}, {"JOULE_LENDING", "off"}});
    AllBusy b;
    b.tasks = workers;
    nanos6_register_polling_service("release", &release_after_rounds, &b);
    for (int i = 0; i < workers; ++i) joule::spawn([&b] { spin_until_released(b); });
    joule::taskwait();
    nanos6_unregister_polling_service("release", &release_after_rounds, &b);
    EXPECT_EQ(b.gave_up.load(), 0) << workers << " workers: the service stopped running";
    EXPECT_TRUE(b.released.load()) << workers << " workers";
    EXPECT_GE(b.rounds_all_busy.load(), kRoundsBeforeRelease) << workers << " workers";
  }
}

}  // namespace
