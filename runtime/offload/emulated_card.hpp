// The host side of the emulated many-core card. start() forks the card
// process (so it must run before the host process has threads: the runtime
// calls it while it is being constructed, before its workers start) and a
// pump thread that moves commands from the host's queue into the shared ring
// and results back. Transfers go through the shared staging area and are
// counted against the emulated PCIe bandwidth. If the card process dies,
// every launch in flight or submitted later fails with an error naming it,
// and the host carries on.
#pragma once

#include <oneapi/tbb/concurrent_queue.h>
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "config.hpp"
#include "device.hpp"
#include "placement.hpp"

namespace joule::offload {

// The card a configuration describes, checked: more threads than PUs or host
// CPUs outside the process mask throw joule::error(JOULE_ERR_CONFIG).
struct CardPlan {
  card_affinity::CardTopology topo;
  std::vector<card_affinity::PuSlot> slots;  // one per card thread
  std::vector<int> cpus;                     // host CPUs its cores run on
  double freq = 0;                           // the P-state it starts at (GHz)
};
CardPlan plan_card(const CardSettings& cfg);
// Emulated DVFS (card_dvfs.cpp): the configured starting P-state (0: the
// highest; one that is not in JOULE_CARD_FREQS is a JOULE_ERR_CONFIG error)
// and a P-state as the card's speed, f/f_max in thousandths.
double card_frequency(const CardSettings& cfg);
std::uint32_t speed_permille(const CardSettings& cfg, double ghz);

class EmulatedCard final : public Device {
 public:
  // Forks the card now (before the process has threads). Throws
  // joule::error(JOULE_ERR_CONFIG) for a bad combination of settings.
  static std::unique_ptr<EmulatedCard> start(const CardSettings& cfg);
  // Attaches to the running joule-card daemon cfg.daemon names (card_attach.cpp);
  // the card's settings are the daemon's. Throws joule::error(JOULE_ERR_CONFIG)
  // when there is no such daemon or it does not answer.
  static std::unique_ptr<EmulatedCard> attach(const CardSettings& cfg);
  ~EmulatedCard() override;  // waits for launches in flight, stops the card

  std::string describe() const override;
  std::vector<std::string> thread_map() const override;
  void submit(const Launch& launch, Completion done) override;
  DeviceEnergy energy() const override;

  long pid() const override { return pid_; }
  bool alive() const override { return !dead_.load(); }
  const std::vector<card_affinity::PuSlot>& placement() const noexcept { return slots_; }
  const CardSettings& config() const noexcept { return cfg_; }
  const CardSettings* card_config() const override { return &cfg_; }
  std::vector<double> frequencies() const override { return cfg_.freqs; }
  double frequency() const override { return freq_.load(); }
  void set_frequency(double ghz) override;  // card_dvfs.cpp

 private:
  struct Pending {
    Completion done;
    std::vector<std::pair<Region, std::size_t>> back;  // to_host regions, staging offset
    std::size_t stage_off = 0, stage_bytes = 0;
  };
  EmulatedCard(const CardSettings& cfg, card_affinity::CardTopology topo);
  void fork_card(std::vector<int> host_cpus);
  void attach_daemon();
  bool daemon_gone();  // attach mode's card_exited()
  void pump();
  void drain_results();
  bool card_exited();
  void fail(std::uint64_t id, const std::string& why);
  void finish(Pending& p, std::exception_ptr error);
  Command* build(const Launch& l, std::uint64_t id, Pending& p);
  std::size_t stage_alloc(std::size_t bytes);
  void stage_free(std::size_t off, std::size_t bytes);

  CardSettings cfg_;
  card_affinity::CardTopology topo_;
  std::vector<card_affinity::PuSlot> slots_;
  std::vector<int> host_cpus_;
  SharedArea* area_ = nullptr;
  std::size_t map_bytes_ = 0, staging_bytes_ = 0;
  pid_t pid_ = -1;      // the card process: forked child, or the daemon's worker
  int daemon_fd_ = -1;  // attach mode: the connection to the daemon
  std::uint64_t start_ns_ = 0;
  std::atomic<bool> dead_{false}, stopping_{false};
  std::atomic<double> freq_{0};  // the card's P-state (GHz)
  std::string death_;            // written by the pump before dead_ is set

  // Host-side command queue: any host thread pushes, the pump pops.
  tbb::concurrent_bounded_queue<Command*> queue_;
  std::atomic<std::uint64_t> next_id_{1};
  std::mutex pending_mutex_;
  std::unordered_map<std::uint64_t, Pending> pending_;

  std::mutex stage_mutex_;
  std::condition_variable stage_cv_;
  std::map<std::size_t, std::size_t> free_;  // offset -> bytes, first fit

  std::atomic<std::uint64_t> bytes_to_card_{0}, bytes_to_host_{0}, launches_{0};
  std::thread pump_;
};

}  // namespace joule::offload
