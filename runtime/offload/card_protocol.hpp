// What the host and the emulated card share: one anonymous MAP_SHARED
// mapping made before the fork (so no named segment exists that a killed
// run could leave behind), holding two single-producer rings and the
// staging area that every transfer goes through.
//
//   host pump thread  --commands-->  card dispatcher
//   host pump thread  <--results---  card workers (serialised by a card-side mutex)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "shm_ring.hpp"

namespace joule::offload {

// A card-side body: args points at the card's copy of the argument bytes,
// ctx at the card_context the public API hands the kernel. The pointer is
// valid in the card process because the card is a fork of the host.
using CardFn = void (*)(void* args, void* ctx);

inline constexpr int kMaxRegions = 16;
inline constexpr std::size_t kMaxArgs = 1024;

enum Access : std::uint8_t { kIn = 1, kOut = 2, kInout = 3 };

struct WireRegion {
  std::uint64_t host = 0;  // host address: the key of the card's data directory
  std::uint64_t bytes = 0;
  std::uint64_t staging = 0;  // offset of its bytes in the staging area
  std::uint8_t access = kIn;  // for the card-side dependencies
  bool to_card = false;       // staging -> card copy before the body
  bool to_host = false;       // card copy -> staging after the body
};

enum class Op : std::uint32_t { run = 1, release = 2, stop = 3 };

struct Command {
  std::uint64_t id = 0;
  Op op = Op::run;
  std::uint32_t regions = 0;
  CardFn fn = nullptr;  // null: a pure transfer (copy_in / copy_out / allocate)
  std::uint64_t args_size = 0;
  WireRegion region[kMaxRegions];
  alignas(16) unsigned char args[kMaxArgs];
};

struct Result {
  std::uint64_t id = 0;
  std::uint32_t ok = 1;
  char error[240] = {};
};

// Counters the card updates and the host reads (energy, occupancy).
struct CardCounters {
  std::atomic<std::uint64_t> thread_busy_ns{0};  // sum over threads of time running work
  std::atomic<std::uint64_t> core_busy_ns{0};    // sum over cores of time with >= 1 busy thread
  std::atomic<std::uint64_t> jobs{0};
  std::atomic<std::uint64_t> card_bytes{0};  // bytes copied between staging and card copies
  // Dynamic energy at the P-state of the moment: busy ns times (f/f_max)^3,
  // so the energy model holds across frequency changes.
  std::atomic<std::uint64_t> thread_busy_wns{0};
  std::atomic<std::uint64_t> core_busy_wns{0};
  // The card's speed, f/f_max in thousandths (set by the host: emulated DVFS).
  std::atomic<std::uint32_t> speed_permille{1000};
  std::atomic<std::uint32_t> ready{0};  // the card's threads are up
  std::atomic<std::uint32_t> threads{0};
};

// The host's loaded objects (attach mode): the card worker is the host's
// binary re-executed, so a host code address is the same object and offset
// at another load address there (code_relocation.hpp). Empty when forked.
struct WireModule {
  std::uint64_t base = 0, lo = 0, hi = 0;  // load bias, [lo, hi) its loaded segments
  char name[240] = {};                     // dl_iterate_phdr's name ("" for the program)
};
struct ModuleTable {
  static constexpr std::uint32_t kMax = 96;
  std::uint32_t count = 0;  // written by the host before its first command
  WireModule module[kMax];
};

// What a daemon's worker needs to build the card (attach mode only).
struct WorkerSetup {
  std::int32_t daemon_pid = 0;  // the worker's parent: it stops when that goes
  char settings[2048] = {};     // card_settings_text() of the daemon's card
};

struct SharedArea {
  static constexpr std::uint64_t kMagic = 0x6a6f756c65636172ull;  // "joulecar"
  std::uint64_t magic = kMagic;
  std::uint32_t version = 2;
  CardCounters counters;
  WorkerSetup worker;
  ModuleTable modules;
  ShmRing<Command, 32> commands;
  ShmRing<Result, 256> results;
  // the staging area follows, at staging_offset()
  static std::size_t staging_offset() { return (sizeof(SharedArea) + 4095) & ~std::size_t(4095); }
  unsigned char* staging() { return reinterpret_cast<unsigned char*>(this) + staging_offset(); }
};

}  // namespace joule::offload
