// The C++ offload API (joule/offload.hpp): converts its types to the card
// tasks layer's (runtime/offload/tasks/card_tasks.hpp) and calls it. No
// logic lives here.
#include <vector>

#include "card_tasks.hpp"
#include "code_relocation.hpp"
#include "joule/offload.hpp"
#include "kernel_context.hpp"
#include "offload_copies.hpp"

namespace joule::detail {
namespace {

static_assert(int(device::host) == int(card_tasks::CardTarget::host) &&
              int(device::mic) == int(card_tasks::CardTarget::mic));
static_assert(int(copy_dir::in) == offload::kIn && int(copy_dir::out) == offload::kOut &&
              int(copy_dir::inout) == offload::kInout);

// A card body maps to the card's memory and runs its own loops: on a GPU it
// would run on the host over device addresses.
void check_card_body(int device) {
  if (device == int(joule::device::cuda))
    throw error(
        JOULE_ERR_INVALID,
        "joule: a task for device(cuda) takes a joule::cuda_context& body (joule/cuda.hpp), "
        "not a joule::card_context&");
}

}  // namespace

void* card_map(void* ctx, const void* host) {
  return static_cast<offload::KernelContext*>(ctx)->map(host);
}
const void* card_host_static(const void* host) { return offload::relocate_host_code(host); }
int card_threads(void* ctx) { return static_cast<offload::KernelContext*>(ctx)->threads(); }
void card_parallel_for(void* ctx, loop_fn fn, void* arg, std::int64_t lo, std::int64_t hi) {
  static_cast<offload::KernelContext*>(ctx)->parallel_for(fn, arg, lo, hi);
}

void card_run(int device, card_fn fn, const void* args, std::size_t size, std::size_t align,
              const dep* deps, std::size_t ndeps, bool copy_deps, const copy_region* copies,
              std::size_t ncopies) {
  check_card_body(device);
  const std::vector<card_tasks::CopyRegion> c = copies_of(copies, ncopies);
  card_tasks::run_card_task({{device, {deps, ndeps}, copy_deps, c}, fn, args, size, align});
}

void* card_enter(int device, const dep* deps, std::size_t ndeps, bool copy_deps,
                 const copy_region* copies, std::size_t ncopies) {
  check_card_body(device);
  const std::vector<card_tasks::CopyRegion> c = copies_of(copies, ncopies);
  return card_tasks::enter_card_spawn({device, {deps, ndeps}, copy_deps, c});
}

void card_leave(void* entered, bool submitted) noexcept {
  card_tasks::leave_card_spawn(static_cast<card_tasks::CardSpawn*>(entered), submitted);
}

}  // namespace joule::detail

namespace joule {

card_energy card_status() {
  card_energy out;
  const std::optional<card_tasks::CardStatus> s = card_tasks::card_status();
  if (!s) return out;
  const offload::DeviceEnergy& e = s->energy;
  out = {e.seconds,       e.joules,     e.busy_core_s, e.busy_thread_s, e.bytes_to_card,
         e.bytes_to_host, e.transfer_s, e.launches,    s->pid,          s->alive};
  out.copies_in = s->coherence.copies_in;
  out.resident_hits = s->coherence.resident_hits;
  out.copies_back = s->coherence.copies_back;
  out.freq_ghz = s->freq_ghz;
  return out;
}

std::vector<double> card_frequencies() { return card_tasks::card_frequencies(); }

void set_card_frequency(double ghz) { card_tasks::set_card_frequency(ghz); }

}  // namespace joule
