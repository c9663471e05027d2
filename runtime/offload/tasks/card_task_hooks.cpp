// Data kept on the card and the GPUs between their tasks, on the host's
// side: registering a device task's regions when it is spawned, the
// prologue that host tasks naming such regions get, and the flush at
// taskwait and at stop (docs/offload.md, "Data kept on the card"). Every
// offload target (the card, each open GPU) keeps its own Coherence; the
// decisions are Coherence's, this file only connects them to tasks.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "card_tasks.hpp"
#include "gpu_devices.hpp"
#include "runtime.hpp"
#include "task_hooks.hpp"

namespace joule::card_tasks {

struct CardSpawn {
  offload::Coherence* coherence;   // the target's record
  std::vector<offload::Use> uses;  // the regions Coherence::enter merged
};

namespace {

// Set between enter_card_spawn and leave_card_spawn: the task being
// submitted is the card task itself, whose transfers run_card_task decides.
thread_local bool t_card_spawn = false;

bool reads(int kind) { return kind != JOULE_DEP_OUT; }
bool writes(int kind) { return kind != JOULE_DEP_IN; }

// One offload target: a device and its record of which copies are current.
struct Target {
  offload::Device* device;
  offload::Coherence* coherence;
  std::string name;
};

// The card (its device null when it is gone but its record is not), then
// each open GPU. Called where something is tracked.
std::vector<Target> targets() {
  std::vector<Target> out;
  offload::Device* card = current_card();
  if (card || card_coherence().active()) out.push_back({card, &card_coherence(), "the card"});
  const int n = open_gpu_count();
  for (int i = 0; i < n; ++i) {
    Gpu& g = open_gpu(i);
    out.push_back({g.device.get(), &g.coherence, g.name()});
  }
  return out;
}

// The host tasks' hot path: one relaxed load while no device tracks anything.
bool any_active() noexcept { return offload::Coherence::any_active(); }

bool any_tracks(const void* addr, std::size_t bytes) {
  if (!any_active()) return false;
  if (card_coherence().tracks(addr, bytes)) return true;
  const int n = open_gpu_count();
  for (int i = 0; i < n; ++i)
    if (open_gpu(i).coherence.tracks(addr, bytes)) return true;
  return false;
}

// A region lives on one target at a time: the coherence record is per
// device, so a second device's copy would go unseen by the first's.
void check_one_target(const Target& to, const std::vector<offload::Use>& uses) {
  for (const Target& other : targets()) {
    if (other.coherence == to.coherence) continue;
    for (const offload::Use& u : uses)
      if (other.coherence->tracks(u.addr, u.bytes))
        throw error(JOULE_ERR_INVALID,
                    "joule: region " +
                        offload::region_text(reinterpret_cast<std::uintptr_t>(u.addr), u.bytes) +
                        " is kept on " + other.name + " and a task for " + to.name +
                        " names it; a region lives on one device at a time until a taskwait "
                        "brings it home");
  }
}

// The spawn's target: the card, or the GPU it names (opened now).
Target target_of(const CardTaskRegions& r) {
  if (r.device == int(CardTarget::mic)) return {current_card(), &card_coherence(), "the card"};
  Gpu& g = gpu_for_task(r.device_num);
  return {g.device.get(), &g.coherence, g.name()};
}

// The regions each watched host task names, until its body runs (or it
// is discarded). Only tasks naming data a device holds come here: a host
// task path with devices at work, where a lock per task is noise beside
// the copies.
std::mutex g_watched_mutex;
std::unordered_map<const core::Task*, std::vector<offload::Use>>& watched() {
  static auto* m = new std::unordered_map<const core::Task*, std::vector<offload::Use>>();
  return *m;  // used at exit: never destroyed
}

void watch(core::Task& t, const offload::Use& u) {
  std::lock_guard guard(g_watched_mutex);
  watched()[&t].push_back(u);  // the C ABI adds dependencies one at a time
  engine::TaskHook::take(t);
}

std::vector<offload::Use> unwatch(const core::Task& t) {
  std::lock_guard guard(g_watched_mutex);
  auto it = watched().find(&t);
  if (it == watched().end()) return {};
  std::vector<offload::Use> uses = std::move(it->second);
  watched().erase(it);
  return uses;
}

// The engine's hook (task_hooks.hpp), set in api/src/wiring.cpp.
bool hook_engaged() noexcept { return any_active(); }

void hook_on_dependency(core::Task& t, int kind, const void* addr, std::size_t bytes) {
  if (t_card_spawn || !t.fn || !any_tracks(addr, bytes)) return;
  watch(t, {addr, bytes, reads(kind), writes(kind)});
}

// If the copy-back fails (the card died) the body does not run on stale
// data: the task fails with the card's error instead.
void hook_before_body(core::Task& t) { make_host_current(unwatch(t)); }

void hook_on_discard(core::Task& t) noexcept { unwatch(t); }

const engine::TaskHook g_hook{&hook_engaged, &hook_on_dependency, &hook_before_body,
                              &hook_on_discard};

}  // namespace

const engine::TaskHook* host_task_hook() noexcept { return &g_hook; }

offload::Coherence& card_coherence() {
  static auto* c = new offload::Coherence();  // used at exit: never destroyed
  return *c;
}

CardSpawn* enter_card_spawn(const CardTaskRegions& r) {
  if (r.device != int(CardTarget::mic) && r.device != int(CardTarget::cuda)) return nullptr;
  // The runtime starts the card: a program's first card task may come
  // before anything started the runtime, and must be recorded too (else it
  // copies its regions back, and the next one copies them in again).
  engine::Runtime& rt = engine::Runtime::get();
  // A GPU task completes when polled: it must not run inline in its
  // spawn, where a task it waits for could not run yet.
  if (r.device == int(CardTarget::cuda)) rt.blocking().activate();
  const Target to = target_of(r);
  if (!to.device) return nullptr;
  std::vector<offload::Use> uses;
  if (r.copy_deps)
    for (const dep& d : r.deps) {
      const int k = int(d.kind);
      uses.push_back({d.addr, d.bytes, reads(k), writes(k)});
    }
  for (const CopyRegion& c : r.copies)
    uses.push_back({c.addr, c.bytes, (c.dir & offload::kIn) != 0, (c.dir & offload::kOut) != 0});
  check_one_target(to, uses);
  auto* entered = new CardSpawn{to.coherence, to.coherence->enter(uses)};
  t_card_spawn = true;
  return entered;
}

void leave_card_spawn(CardSpawn* spawn, bool submitted) noexcept {
  t_card_spawn = false;
  std::unique_ptr<CardSpawn> s(spawn);
  if (s && !submitted) s->coherence->leave(s->uses);
}

void make_host_current(const std::vector<offload::Use>& uses) {
  if (!any_active()) return;
  for (const Target& to : targets())
    if (to.device && to.coherence->active()) to.coherence->host_access(*to.device, uses);
}

// Every target flushed even when one fails; the first failure is rethrown.
void card_after_taskwait() {
  if (!any_active()) return;
  std::exception_ptr first;
  for (const Target& to : targets()) {
    if (!to.coherence->active()) continue;
    try {
      to.coherence->flush(to.device);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

void card_after_taskwait_on(const dep* deps, std::size_t n) {
  if (!any_active()) return;
  std::vector<offload::Use> uses;
  for (std::size_t i = 0; i < n; ++i) {
    const int k = int(deps[i].kind);
    uses.push_back({deps[i].addr, deps[i].bytes, reads(k), writes(k)});
  }
  make_host_current(uses);
}

void card_after_failed_taskwait() noexcept {
  try {
    card_after_taskwait();
  } catch (...) {  // the failed device tasks already reported why
  }
}

void card_after_stop() noexcept {
  card_after_failed_taskwait();
  card_coherence().clear();
  const int n = open_gpu_count();
  for (int i = 0; i < n; ++i) open_gpu(i).coherence.clear();
  gpus_after_stop();  // the GPUs' clocks as they were
}

}  // namespace joule::card_tasks
