// The host side of card tasks on the engine (docs/offload.md): the card's
// lifetime (an observer factory that forks it), launching a card task from
// the engine's current task, the prologues that copy data kept on the card
// back for host tasks, the taskwait and stop hooks, and the card's status
// and P-states. The api layer converts the public types (joule/offload.hpp)
// to the ones here and calls these functions.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "card_protocol.hpp"
#include "coherence.hpp"
#include "config.hpp"
#include "device.hpp"
#include "joule/types.hpp"
#include "observer.hpp"
#include "task.hpp"
#include "task_hooks.hpp"

namespace joule::card_tasks {

// Where a card task's body runs (the values of joule::device).
enum class CardTarget : int { host = 0, mic = 1, cuda = 2 };

// A region a card task copies explicitly (copy_in / copy_out / copy_inout).
struct CopyRegion {
  const void* addr = nullptr;
  std::size_t bytes = 0;
  int dir = offload::kIn;  // kIn, kOut or kInout
};

// The regions of a card task: its dependencies (copied when copy_deps) and
// its explicit copies, in that order.
struct CardTaskRegions {
  int device = int(CardTarget::mic);  // as given: run_card_task rejects unknown ones
  std::span<const dep> deps;
  bool copy_deps = true;
  std::span<const CopyRegion> copies;
  int device_num = 0;  // cuda: which GPU (gpu_devices.hpp)
};

// A card task's body: fn(args, ctx), args copied to the card byte for byte;
// on a GPU fn runs on this thread and args is the body itself (args_size 0).
struct CardTaskRequest {
  CardTaskRegions regions;
  offload::CardFn fn = nullptr;
  const void* args = nullptr;
  std::size_t args_size = 0;
  std::size_t args_align = 1;
};

// The card's time and energy, its process, the data kept on it and its P-state.
struct CardStatus {
  offload::DeviceEnergy energy;
  long pid = -1;
  bool alive = false;
  offload::CoherenceStats coherence;
  double freq_ghz = 0;
};

// --- The card (card_tasks.cpp) ---

// Called while the runtime is constructed, before its workers start: the
// card is forked from a process with one thread. Kept across runtime
// restarts with the same settings; returns no observer (host tasks stay
// unobserved). Registered first of the observer factories (api's wiring).
std::unique_ptr<core::Observer> start_card(const core::Config& cfg);
offload::Device* current_card();  // null: no card
offload::Coherence& card_coherence();
std::optional<CardStatus> card_status();  // nullopt: no card
std::vector<double> card_frequencies();   // empty: no card
void set_card_frequency(double ghz);      // throws joule::error without a card

// The body of a card task, on the engine's current task: on the host
// (device host, after its explicit copies are current there), launched on
// the card, or enqueued on a GPU's stream (device cuda), the task's
// completion held until the device reports back. Throws joule::error for an
// unknown device, no card, or no such GPU (saying why).
void run_card_task(const CardTaskRequest& r);

// --- Card tasks and host tasks (card_task_hooks.cpp) ---
// "The card" below is every offload target: the card and each open GPU,
// each with its own Coherence. A region lives on one of them at a time
// (between taskwaits); a spawn naming it on another throws joule::error.

// Spawning a card task: registers its regions with the record of which copy
// (host or card) is current, and marks this thread as submitting it (its
// dependencies get no prologue). Null for a host device or without a card;
// throws joule::error for a GPU task without that GPU (the probe's reason).
// leave_card_spawn ends that; a spawn that was not submitted forgets its regions.
struct CardSpawn;
CardSpawn* enter_card_spawn(const CardTaskRegions& r);
void leave_card_spawn(CardSpawn* spawn, bool submitted) noexcept;

// The engine's task hook (registered in api/src/wiring.cpp): a host task
// naming a region whose newest version may be on a device has it copied
// back before its body runs (and the device's copy marked stale if it
// writes). Skipped for the task a card spawn is submitting.
const engine::TaskHook* host_task_hook() noexcept;
// The host uses these regions now: copied back from the device holding
// their newest version; a host write makes the devices' copies stale.
void make_host_current(const std::vector<offload::Use>& uses);
// After taskwait: host memory current, card copies dropped. Rethrows a
// failed copy-back.
void card_after_taskwait();
void card_after_failed_taskwait() noexcept;  // as above; the task's error wins
void card_after_taskwait_on(const dep* deps, std::size_t n);
// After the runtime stopped: as taskwait, then forget every region.
void card_after_stop() noexcept;

}  // namespace joule::card_tasks
