// The card's lifetime and the host side of card tasks. A card task's body
// returns as soon as the card has its work; the task's completion is held
// until the card reports back (Blocking::hold_completion), so no host worker
// waits on the card and many card tasks can be in flight.
#include "card_tasks.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "card_daemon_wire.hpp"
#include "gpu_devices.hpp"
#include "kernel_context.hpp"
#include "log.hpp"
#include "runtime.hpp"
#include "trace_api.hpp"

namespace joule::card_tasks {
namespace {

std::mutex g_card_mutex;
offload::Device* g_card = nullptr;  // deleted at exit, not by a static destructor
std::string g_card_key;

std::string card_key(const offload::CardSettings& c) {
  return std::string(
             core::choice_name(core::Choices<offload::CardMode>(offload::kCardModes), c.mode)) +
         "|" + c.daemon + "|" + offload::card_settings_text(c);  // every JOULE_CARD_* key
}

void stop_card_at_exit() {
  // Its card tasks finish first; after exit() inside a task nothing
  // finishes, and the card process notices that its host is gone.
  if (!engine::Runtime::stop_at_exit()) return;
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

// device(host) with explicit copies: the host's memory must be current.
void host_copies(std::span<const CopyRegion> copies) {
  if (copies.empty()) return;
  std::vector<offload::Use> uses;
  for (const CopyRegion& c : copies)
    uses.push_back({c.addr, c.bytes, (c.dir & offload::kIn) != 0, (c.dir & offload::kOut) != 0});
  make_host_current(uses);
}

// Waits for a launch of a task that runs inline (nothing held). A GPU's
// completions run only when polled: this thread polls them.
void wait_inline(offload::Device& dev, const offload::Ticket& done, bool polled) {
  while (polled && !done.done())
    if (!dev.poll_completions()) std::this_thread::yield();
  done.wait();
}

// The device reported back: its record follows, and the trace's launch
// (and copy in, where it read anything) ends.
void launch_done(offload::Coherence& coh, const std::vector<offload::Region>& regions,
                 bool failed) {
  coh.end_card_task(regions, failed);
  namespace trace = core::trace;
  if (std::any_of(regions.begin(), regions.end(),
                  [](const offload::Region& g) { return g.access & offload::kIn; }))
    trace::emit_event(trace::Event::kEvOffloadCopyIn, 0);
  trace::emit_event(trace::Event::kEvOffloadLaunch, 0);
}

// Launches l on the device and completes the current task when the device
// reports back; coh, the device's record of which copies are current,
// follows the launch (it copies in only what is stale on the device).
// `polled`: completions run from Device::poll_completions (a GPU).
void launch_device_task(offload::Device& dev, offload::Coherence& coh, offload::Launch& l,
                        bool polled) {
  engine::Runtime& r = engine::Runtime::get();
  core::Task* t = r.context().current;
  core::trace::emit_event(core::trace::Event::kEvOffloadLaunch, t->id);
  if (!r.blocking().hold_completion(t)) {  // runs inline: wait here
    core::trace::begin_state(core::trace::State::kOffload);
    try {
      offload::Ticket done;
      coh.submit_card_task(dev, l,
                           [done](std::exception_ptr e) mutable { done.finish(std::move(e)); });
      wait_inline(dev, done, polled);
    } catch (...) {
      core::trace::end_state(core::trace::State::kOffload);
      launch_done(coh, l.regions, true);
      throw;
    }
    core::trace::end_state(core::trace::State::kOffload);
    launch_done(coh, l.regions, false);
    return;
  }
  try {
    // Before release_hold: a taskwait that sees the task done sees its writes recorded.
    coh.submit_card_task(dev, l, [&r, &coh, t, regions = l.regions](std::exception_ptr e) {
      launch_done(coh, regions, e != nullptr);
      r.blocking().release_hold(t, std::move(e));
    });
  } catch (...) {
    launch_done(coh, l.regions, true);
    r.blocking().release_hold(t, nullptr);
    throw;
  }
}

offload::Launch launch_of(const CardTaskRequest& r) {
  const CardTaskRegions& where = r.regions;
  offload::Launch l{r.fn, r.args, r.args_size, r.args_align, {}, false};
  if (where.copy_deps)
    for (const dep& d : where.deps) add_region(l, d.addr, d.bytes, dep_dir(d.kind));
  for (const CopyRegion& c : where.copies) add_region(l, c.addr, c.bytes, c.dir);
  return l;
}

}  // namespace

std::unique_ptr<core::Observer> start_card(const core::Config& cfg) {
  std::lock_guard lk(g_card_mutex);
  const std::string key = card_key(cfg.get<offload::CardSettings>());
  const offload::CardSettings& card = cfg.get<offload::CardSettings>();
  const bool wanted = card.mode != offload::CardMode::none;
  const bool keep = wanted && g_card && g_card->alive() && key == g_card_key;
  if (!keep) {
    card_coherence().clear();  // what the old card held is gone with it
    delete g_card;
    g_card = nullptr;
  }
  if (keep) offload::reset_card_frequency(*g_card);  // a new run starts at JOULE_CARD_FREQ
  if (wanted && !g_card) {
    g_card = (card.mode == offload::CardMode::attach ? offload::attach_card(card)
                                                     : offload::start_emulated_card(card))
                 .release();
    g_card_key = key;
    if (cfg.dump) {  // as KMP_AFFINITY=verbose prints the placement at start-up
      core::log_info(g_card->describe());
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

std::optional<CardStatus> card_status() {
  std::lock_guard lk(g_card_mutex);
  if (!g_card) return std::nullopt;
  CardStatus out;
  out.energy = g_card->energy();
  out.pid = g_card->pid();
  out.alive = g_card->alive();
  out.coherence = card_coherence().stats();
  out.freq_ghz = g_card->frequency();
  return out;
}

std::vector<double> card_frequencies() {
  std::lock_guard lk(g_card_mutex);
  return g_card ? g_card->frequencies() : std::vector<double>{};
}

void set_card_frequency(double ghz) {
  std::lock_guard lk(g_card_mutex);
  if (!g_card)
    throw error(JOULE_ERR_STATE, "joule: no card to set the frequency of (set JOULE_CARD)");
  g_card->set_frequency(ghz);
}

void run_card_task(const CardTaskRequest& r) {
  const CardTaskRegions& where = r.regions;
  if (where.device == int(CardTarget::host)) {
    host_copies(where.copies);  // its dependencies were handled when it was spawned
    HostContext ctx;
    r.fn(const_cast<void*>(r.args), &ctx);
    return;
  }
  if (where.device == int(CardTarget::cuda)) {
    Gpu& gpu = gpu_for_task(where.device_num);
    offload::Launch l = launch_of(r);
    gpu.tasks.fetch_add(1, std::memory_order_relaxed);
    launch_device_task(*gpu.device, gpu.coherence, l, true);
    return;
  }
  if (where.device != int(CardTarget::mic))
    throw error(JOULE_ERR_INVALID, "joule: unknown device " + std::to_string(where.device) +
                                       " (allowed: host, mic, cuda)");
  offload::Device* card = current_card();
  if (!card)
    throw error(JOULE_ERR_STATE,
                "joule: a task for device(mic) but no card (set JOULE_CARD=emulated)");
  offload::Launch l = launch_of(r);
  launch_device_task(*card, card_coherence(), l, false);
}

}  // namespace joule::card_tasks
