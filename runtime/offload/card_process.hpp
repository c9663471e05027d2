// The emulated card's process: forked by the host before any of the host's
// threads exist, it starts its own placed threads (CardPool), reads
// commands from the shared ring, orders them by the regions they name (a
// task waits for earlier writers of its regions, a writer also for earlier
// readers), runs them against its data directory and posts results.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "card_protocol.hpp"
#include "placement.hpp"

namespace joule::offload {

struct CardSetup {
  std::vector<card_affinity::PuSlot> slots;  // one per card thread
  int cores = 0;
  std::vector<int> host_cpus;
  std::size_t staging_bytes = 0;
  pid_t host_pid = 0;
};

// Runs the card until a stop command (or the host's death); never returns.
[[noreturn]] void card_main(SharedArea* area, const CardSetup& setup);

}  // namespace joule::offload
