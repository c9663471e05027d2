// What the offload API's files share (api/ only): the card, the host side of
// its data directory, and the hooks the task and taskwait entry points call
// so that data kept on the card is copied back when the host needs it.
#pragma once

#include <cstddef>

#include "coherence.hpp"
#include "device.hpp"
#include "joule/types.hpp"
#include "task.hpp"

namespace joule::api {

using namespace joule::core;
using namespace joule::engine;

offload::Device* current_card();  // null: no card
offload::Coherence& card_coherence();

// task_add_deps / joule_task_add_dep(s): a host task naming a region whose
// newest version may be on the card gets a prologue that copies it back
// (and marks the card's copy stale if it writes). Skipped for the task a
// card spawn is submitting.
void card_watch_host_task(Task* t, const dep* deps, std::size_t n);
void card_watch_host_task(Task* t, int kind, const void* addr, std::size_t bytes);
void card_unwatch(Task* t);  // before discard: drops the prologue
// After taskwait: host memory current, card copies dropped. Rethrows a
// failed copy-back.
void card_after_taskwait();
void card_after_failed_taskwait() noexcept;  // as above; the task's error wins
void card_after_taskwait_on(const dep* deps, std::size_t n);
// After the runtime stopped: as taskwait, then forget every region.
void card_after_stop() noexcept;

}  // namespace joule::api
