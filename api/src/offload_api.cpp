// The C++ offload API (joule/offload.hpp) over the offload layer: the card's
// lifetime and the host side of card tasks. A card task's body returns as
// soon as the card has its work; the task's completion is held until the
// card reports back (Runtime::hold_completion), so no host worker waits on
// the card and many card tasks can be in flight.
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "card_daemon_wire.hpp"
#include "card_internal.hpp"
#include "code_relocation.hpp"
#include "device.hpp"
#include "joule/offload.hpp"
#include "kernel_context.hpp"
#include "log.hpp"
#include "runtime.hpp"

namespace joule::api {

using namespace joule::core;
using namespace joule::engine;
namespace {

std::mutex g_card_mutex;
offload::Device* g_card = nullptr;  // deleted at exit, not by a static destructor
std::string g_card_key;

std::string card_key(const Config::Card& c) {
  return c.mode + "|" + c.daemon + "|" + offload::card_settings_text(c);  // every JOULE_CARD_* key
}

void stop_card_at_exit() {
  Runtime::stop();    // its card tasks finish first
  card_after_stop();  // results still on the card come home
  std::lock_guard lk(g_card_mutex);
  if (g_card && g_card->alive()) {
    try {  // an attached card outlives this process: leave it at its starting P-state
      offload::reset_card_frequency(*g_card);
    } catch (const std::exception&) {
    }
  }
  delete g_card;
  g_card = nullptr;
}

// device(host): the body runs here, on the host's data.
class HostContext final : public offload::KernelContext {
 public:
  void* map(const void* host) const override { return const_cast<void*>(host); }
  int threads() const override { return 1; }
  void parallel_for(offload::ChunkFn fn, void* ctx, std::int64_t b, std::int64_t e) override {
    if (e > b) fn(ctx, b, e);
  }
};

void add_region(offload::Launch& l, const void* addr, std::size_t bytes, int dir) {
  for (offload::Region& r : l.regions)
    if (r.host == addr) {  // one region per start address: the card keys copies by it
      r.bytes = std::max(r.bytes, bytes);
      r.access = offload::Access(r.access | dir);
      r.to_card |= (dir & offload::kIn) != 0;
      r.to_host |= (dir & offload::kOut) != 0;
      return;
    }
  l.regions.push_back(
      {addr, bytes, offload::Access(dir), (dir & offload::kIn) != 0, (dir & offload::kOut) != 0});
}

int dep_dir(dep_kind k) {
  if (k == dep_kind::in) return offload::kIn;
  if (k == dep_kind::out) return offload::kOut;
  return offload::kInout;
}

}  // namespace

// Called while the runtime is constructed, before its workers start: the
// card is forked from a process with one thread. Kept across runtime
// restarts with the same settings; returns no observer (host tasks stay
// unobserved).
std::unique_ptr<Observer> start_card(const Config& cfg) {
  std::lock_guard lk(g_card_mutex);
  const std::string key = card_key(cfg.card);
  const bool wanted = cfg.card.mode != "none";
  const bool keep = wanted && g_card && g_card->alive() && key == g_card_key;
  if (!keep) {
    card_coherence().clear();  // what the old card held is gone with it
    delete g_card;
    g_card = nullptr;
  }
  if (keep) offload::reset_card_frequency(*g_card);  // a new run starts at JOULE_CARD_FREQ
  if (wanted && !g_card) {
    g_card = (cfg.card.mode == "attach" ? offload::attach_card(cfg.card)
                                        : offload::start_emulated_card(cfg.card))
                 .release();
    g_card_key = key;
    if (cfg.dump) {  // as KMP_AFFINITY=verbose prints the placement at start-up
      joule::core::log_info(g_card->describe());
      for (const std::string& line : g_card->thread_map())
        std::fprintf(stderr, "joule card: %s\n", line.c_str());
    }
    static const bool registered = (std::atexit(stop_card_at_exit), true);
    (void)registered;
  }
  return nullptr;
}

offload::Device* current_card() {
  std::lock_guard lk(g_card_mutex);
  return g_card;
}

}  // namespace joule::api

namespace joule::detail {

void* card_map(void* ctx, const void* host) {
  return static_cast<offload::KernelContext*>(ctx)->map(host);
}
const void* card_host_static(const void* host) { return offload::relocate_host_code(host); }
int card_threads(void* ctx) { return static_cast<offload::KernelContext*>(ctx)->threads(); }
void card_parallel_for(void* ctx, loop_fn fn, void* arg, std::int64_t lo, std::int64_t hi) {
  static_cast<offload::KernelContext*>(ctx)->parallel_for(fn, arg, lo, hi);
}

namespace {
// device(host) with explicit copies: the host's memory must be current.
void host_copies(const copy_region* copies, std::size_t n) {
  offload::Device* card = api::current_card();
  if (!card || !n || !api::card_coherence().active()) return;
  std::vector<offload::Use> uses;
  for (std::size_t i = 0; i < n; ++i) {
    const int d = int(copies[i].dir);
    uses.push_back({copies[i].addr, copies[i].bytes, (d & 1) != 0, (d & 2) != 0});
  }
  api::card_coherence().host_access(*card, uses);
}
}  // namespace

namespace {
// Launches l on the card and completes the current task when the card
// reports back; the record of which copies are current follows the launch
// (it copies in only what is stale on the card).
void launch_card_task(offload::Device& card, offload::Launch& l) {
  offload::Coherence& coh = api::card_coherence();
  engine::Runtime& r = engine::Runtime::get();
  core::Task* t = r.context().current;
  if (!r.hold_completion(t)) {  // runs inline: wait here
    try {
      offload::Ticket done;
      coh.submit_card_task(card, l,
                           [done](std::exception_ptr e) mutable { done.finish(std::move(e)); });
      done.wait();
    } catch (...) {
      coh.end_card_task(l.regions, true);
      throw;
    }
    coh.end_card_task(l.regions, false);
    return;
  }
  try {
    // Before release_hold: a taskwait that sees the task done sees its writes recorded.
    coh.submit_card_task(card, l, [&r, &coh, t, regions = l.regions](std::exception_ptr e) {
      coh.end_card_task(regions, e != nullptr);
      r.release_hold(t, std::move(e));
    });
  } catch (...) {
    coh.end_card_task(l.regions, true);
    r.release_hold(t, nullptr);
    throw;
  }
}
}  // namespace

void card_run(int device, card_fn fn, const void* args, std::size_t size, std::size_t align,
              const dep* deps, std::size_t ndeps, bool copy_deps, const copy_region* copies,
              std::size_t ncopies) {
  if (device == int(joule::device::host)) {
    host_copies(copies, ncopies);  // its dependencies were handled when it was spawned
    api::HostContext ctx;
    fn(const_cast<void*>(args), &ctx);
    return;
  }
  if (device != int(joule::device::mic))
    throw error(JOULE_ERR_INVALID,
                "joule: unknown device " + std::to_string(device) + " (allowed: host, mic)");
  offload::Launch l{fn, args, size, align, {}, false};
  if (copy_deps)
    for (std::size_t i = 0; i < ndeps; ++i)
      api::add_region(l, deps[i].addr, deps[i].bytes, api::dep_dir(deps[i].kind));
  for (std::size_t i = 0; i < ncopies; ++i)
    api::add_region(l, copies[i].addr, copies[i].bytes, int(copies[i].dir));
  offload::Device* card = api::current_card();
  if (!card)
    throw error(JOULE_ERR_STATE,
                "joule: a task for device(mic) but no card (set JOULE_CARD=emulated)");
  launch_card_task(*card, l);
}

}  // namespace joule::detail

namespace joule {

card_energy card_status() {
  std::lock_guard lk(api::g_card_mutex);
  card_energy out;
  if (!api::g_card) return out;
  const offload::DeviceEnergy e = api::g_card->energy();
  out = {e.seconds,       e.joules,     e.busy_core_s, e.busy_thread_s,    e.bytes_to_card,
         e.bytes_to_host, e.transfer_s, e.launches,    api::g_card->pid(), api::g_card->alive()};
  const offload::CoherenceStats s = api::card_coherence().stats();
  out.copies_in = s.copies_in;
  out.resident_hits = s.resident_hits;
  out.copies_back = s.copies_back;
  out.freq_ghz = api::g_card->frequency();
  return out;
}

std::vector<double> card_frequencies() {
  std::lock_guard lk(api::g_card_mutex);
  return api::g_card ? api::g_card->frequencies() : std::vector<double>{};
}

void set_card_frequency(double ghz) {
  std::lock_guard lk(api::g_card_mutex);
  if (!api::g_card)
    throw error(JOULE_ERR_STATE, "joule: no card to set the frequency of (set JOULE_CARD)");
  api::g_card->set_frequency(ghz);
}

}  // namespace joule
