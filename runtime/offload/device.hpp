// The device interface of the offload runtime: allocate, copy in / out,
// launch, wait, energy. A device keeps copies of host regions (keyed by the
// region's host address) in its own memory; launches name the regions they
// use and the device orders them by those regions, so several launches can
// be in flight. The emulated card (EmulatedCard) and the CUDA GPUs
// (cuda/cuda_device.hpp) implement it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "card_protocol.hpp"
#include "card_settings.hpp"
#include "config.hpp"

namespace joule::offload {

struct Region {
  const void* host = nullptr;
  std::size_t bytes = 0;
  Access access = kIn;   // how the launch uses it (orders launches on the device)
  bool to_card = false;  // copy host -> device before the launch
  bool to_host = false;  // copy device -> host after it
};

struct Launch {
  CardFn fn = nullptr;  // null: only the transfers
  const void* args = nullptr;
  std::size_t args_size = 0;
  std::size_t args_align = 1;
  std::vector<Region> regions;
  bool release = false;  // drop the device copies of the regions
};

// Time and energy the device reports (modelled on the emulated card).
struct DeviceEnergy {
  double seconds = 0;        // since the device started
  double joules = 0;         // power model integrated over that time
  double busy_core_s = 0;    // summed over cores: time with a busy thread
  double busy_thread_s = 0;  // summed over threads
  std::uint64_t bytes_to_card = 0, bytes_to_host = 0;
  double transfer_s = 0;  // modelled PCIe time of those bytes
  std::uint64_t launches = 0;
  bool measured = false;  // joules from the device's own counter (NVML), not a model
  double watts = 0;       // power now, where the device reads it (0: unknown)
};

// A launch in flight; wait() blocks until the device is done with it.
class Ticket {
 public:
  void wait() const;  // rethrows the launch's error
  bool done() const;
  // Used by devices: marks it done (error may be null).
  void finish(std::exception_ptr error);

 private:
  struct State {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::exception_ptr error;
  };
  std::shared_ptr<State> s_ = std::make_shared<State>();
};

class Device {
 public:
  using Completion = std::function<void(std::exception_ptr)>;
  virtual ~Device() = default;
  virtual std::string describe() const = 0;
  // One KMP_AFFINITY=verbose line per device thread ("thread 0 bound to OS
  // proc set {0} (package 0 core 0 thread 0)"); empty for a device without
  // placed threads.
  virtual std::vector<std::string> thread_map() const { return {}; }
  // Asynchronous: `done` runs (on a device thread) after the launch and its
  // copies back to the host; throws joule::error for a request the device
  // cannot take (bad region, too large, device gone).
  virtual void submit(const Launch& launch, Completion done) = 0;
  virtual DeviceEnergy energy() const = 0;
  virtual long pid() const { return -1; }  // the device's process, if it has one
  virtual bool alive() const { return true; }
  // The card's settings when they are the device's own (an attached card
  // has the daemon's, not this process's JOULE_CARD_*); null otherwise.
  virtual const CardSettings* card_config() const { return nullptr; }
  // Emulated DVFS: the device's P-states (GHz, descending; empty: none), the
  // current one, and a change (throws joule::error for a frequency that is
  // not one of them, or a device without P-states).
  virtual std::vector<double> frequencies() const { return {}; }
  virtual double frequency() const { return 0; }
  virtual void set_frequency(double ghz);
  // Devices whose completions are polled (CUDA: an event per launch) run
  // the `done` of finished launches here; true when any ran. Called from
  // the engine's polling services (idle workers, task boundaries).
  virtual bool poll_completions() { return false; }

  // The interface's verbs over submit().
  Ticket launch(const Launch& l);
  void allocate(const void* host, std::size_t bytes);
  void copy_in(const void* host, std::size_t bytes);
  void copy_out(void* host, std::size_t bytes);
  void release(const void* host, std::size_t bytes);
  static void wait(const Ticket& t) { t.wait(); }
};

// The emulated card (emulated_card.hpp), forked now: call before the
// process has threads. Throws joule::error(JOULE_ERR_CONFIG) on bad settings.
std::unique_ptr<Device> start_emulated_card(const CardSettings& cfg);
// The card of the running joule-card daemon cfg.daemon names (JOULE_CARD=attach).
std::unique_ptr<Device> attach_card(const CardSettings& cfg);
// The card's keys (JOULE_CARD*), for the configuration table.
// Puts a card back at the P-state it starts at (JOULE_CARD_FREQ, else the
// highest; card_dvfs.cpp): a kept card must not carry a lowered frequency
// from the run before into the next.
void reset_card_frequency(Device& card);

}  // namespace joule::offload
