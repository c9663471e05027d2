// Data kept on the card between card tasks, on the host's side: registering
// a card task's regions when it is spawned, the prologue that host tasks
// naming such regions get, and the flush at taskwait and at stop
// (docs/offload.md, "Data kept on the card"). The decisions are
// Coherence's; this file only connects it to tasks.
#include <memory>
#include <vector>

#include "card_tasks.hpp"
#include "runtime.hpp"

namespace joule::offload {

struct CardSpawn {
  std::vector<Use> uses;  // the regions Coherence::enter merged
};

namespace {

// Set between enter_card_spawn and leave_card_spawn: the task being
// submitted is the card task itself, whose transfers run_card_task decides.
thread_local bool t_card_spawn = false;

bool reads(int kind) { return kind != JOULE_DEP_OUT; }
bool writes(int kind) { return kind != JOULE_DEP_IN; }

// A watched host task's real body and the regions it names.
struct Watched {
  joule_task_fn_t fn;
  void* args;
  std::vector<Use> uses;
};

// If the copy-back fails (the card died) the body does not run on stale
// data: the task fails with the card's error instead.
void watched_body(void* p) {
  std::unique_ptr<Watched> w(static_cast<Watched*>(p));
  if (Device* card = current_card()) card_coherence().host_access(*card, w->uses);
  w->fn(w->args);
}

void watch(core::Task* t, const Use& u) {
  if (t->fn == &watched_body) {  // the C ABI adds dependencies one at a time
    static_cast<Watched*>(t->args)->uses.push_back(u);
    return;
  }
  t->args = new Watched{t->fn, t->args, {u}};
  t->fn = &watched_body;
}

}  // namespace

Coherence& card_coherence() {
  static auto* c = new Coherence();  // used at exit: never destroyed
  return *c;
}

CardSpawn* enter_card_spawn(const CardTaskRegions& r) {
  if (r.device != int(CardTarget::mic)) return nullptr;
  // The runtime starts the card: a program's first card task may come
  // before anything started the runtime, and must be recorded too (else it
  // copies its regions back, and the next one copies them in again).
  engine::Runtime::get();
  if (!current_card()) return nullptr;
  std::vector<Use> uses;
  if (r.copy_deps)
    for (const dep& d : r.deps) {
      const int k = int(d.kind);
      uses.push_back({d.addr, d.bytes, reads(k), writes(k)});
    }
  for (const CopyRegion& c : r.copies)
    uses.push_back({c.addr, c.bytes, (c.dir & kIn) != 0, (c.dir & kOut) != 0});
  auto* entered = new CardSpawn{card_coherence().enter(uses)};
  t_card_spawn = true;
  return entered;
}

void leave_card_spawn(CardSpawn* spawn, bool submitted) noexcept {
  t_card_spawn = false;
  std::unique_ptr<CardSpawn> s(spawn);
  if (s && !submitted) card_coherence().leave(s->uses);
}

void card_watch_host_task(core::Task* t, int kind, const void* addr, std::size_t bytes) {
  if (t_card_spawn || !t->fn || !card_coherence().tracks(addr, bytes)) return;
  watch(t, {addr, bytes, reads(kind), writes(kind)});
}

void card_watch_host_task(core::Task* t, const dep* deps, std::size_t n) {
  if (t_card_spawn || !card_coherence().active()) return;
  for (std::size_t i = 0; i < n; ++i)
    card_watch_host_task(t, int(deps[i].kind), deps[i].addr, deps[i].bytes);
}

void card_unwatch(core::Task* t) {
  if (t->fn != &watched_body) return;
  std::unique_ptr<Watched> w(static_cast<Watched*>(t->args));
  t->fn = w->fn;
  t->args = w->args;
}

void card_after_taskwait() {
  if (card_coherence().active()) card_coherence().flush(current_card());
}

void card_after_taskwait_on(const dep* deps, std::size_t n) {
  Device* card = current_card();
  if (!card || !card_coherence().active()) return;
  std::vector<Use> uses;
  for (std::size_t i = 0; i < n; ++i) {
    const int k = int(deps[i].kind);
    uses.push_back({deps[i].addr, deps[i].bytes, reads(k), writes(k)});
  }
  card_coherence().host_access(*card, uses);
}

void card_after_failed_taskwait() noexcept {
  try {
    card_after_taskwait();
  } catch (...) {  // the failed card tasks already reported why
  }
}

void card_after_stop() noexcept {
  card_after_failed_taskwait();
  card_coherence().clear();
}

}  // namespace joule::offload
