// Offload to a many-core card (docs/offload.md). A card task is a joule task
// whose body takes a joule::card_context and runs on the card, on copies of
// the regions its dependencies name (copy_deps) or that copy_in / copy_out /
// copy_inout list. It is ordered against host tasks by its dependencies like
// any task; a host task after it sees the card's output, and the card sees
// what host tasks before it wrote. Data stays on the card between card tasks
// and is copied back when a host task, taskwait or the runtime's stop needs it.
//
//   joule::spawn({joule::in(a, n), joule::out(b, n)},
//                [=](joule::card_context& c) {
//                  const double* ca = c.map(a);  // the card's copies
//                  double* cb = c.map(b);
//                  c.parallel_for(0, n, [=](std::int64_t i) { cb[i] = 2 * ca[i]; });
//                },
//                joule::device_options{.copy_deps = true});
//
// The body is copied to the card byte for byte: capture trivially copyable
// values only (pointers, sizes), and reach data through c.map().
#pragma once

#include <joule/joule.hpp>

#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

namespace joule {

// host: the body runs here; mic: the many-core card (JOULE_CARD); cuda: a
// CUDA GPU (joule/cuda.hpp: the body takes a joule::cuda_context).
enum class device : int { host = 0, mic = 1, cuda = 2 };

enum class copy_dir : int { in = 1, out = 2, inout = 3 };
struct copy_region {
  copy_dir dir;
  const void* addr;
  std::size_t bytes;
};

#define JOULE_DEFINE_COPY(name, dir_)                                \
  template <class T>                                                 \
  copy_region name(const T& x) noexcept {                            \
    return {copy_dir::dir_, std::addressof(x), sizeof(T)};           \
  }                                                                  \
  template <class T>                                                 \
  copy_region name(const T* p, std::size_t n) {                      \
    return {copy_dir::dir_, p, detail::checked_bytes(n, sizeof(T))}; \
  }
JOULE_DEFINE_COPY(copy_in, in)
JOULE_DEFINE_COPY(copy_out, out)
JOULE_DEFINE_COPY(copy_inout, inout)
#undef JOULE_DEFINE_COPY

struct device_options {
  joule::device device = joule::device::mic;
  bool copy_deps =
      true;  // copy what the dependencies name (in: to the card, out: back, inout: both)
  std::vector<copy_region> copies = {};  // further copies, or the only ones without copy_deps
  task_options task = {};
  int device_num = 0;  // device::cuda: which GPU (the driver's ordinal)
};

namespace detail {
using card_fn = void (*)(void* args, void* ctx);
JOULE_EXPORT void* card_map(void* ctx, const void* host);
// On the card: where a host's code or static data is (a joule-card daemon's
// worker loads the program at other addresses); the identity elsewhere.
JOULE_EXPORT const void* card_host_static(const void* host);
JOULE_EXPORT int card_threads(void* ctx);
JOULE_EXPORT void card_parallel_for(void* ctx, loop_fn fn, void* arg, std::int64_t lo,
                                    std::int64_t hi);
// The host side of a card task's body: copies, launch, completion.
JOULE_EXPORT void card_run(int device, card_fn fn, const void* args, std::size_t size,
                           std::size_t align, const dep* deps, std::size_t ndeps, bool copy_deps,
                           const copy_region* copies, std::size_t ncopies);
// Spawning a card task: registers its regions with the host's record of
// which copy (host or card) is current, so that host tasks spawned after it
// copy the card's results back when they need them. Throws for regions that
// overlap live ones without being identical. Returns a token for card_leave.
JOULE_EXPORT void* card_enter(int device, const dep* deps, std::size_t ndeps, bool copy_deps,
                              const copy_region* copies, std::size_t ncopies);
JOULE_EXPORT void card_leave(void* entered, bool submitted) noexcept;
}  // namespace detail

class card_context {
 public:
  explicit card_context(void* impl) noexcept : impl_(impl) {}
  // The card's copy of a host address inside one of the task's regions.
  template <class T>
  T* map(T* host) const {
    return static_cast<T*>(detail::card_map(impl_, host));
  }
  int threads() const { return detail::card_threads(impl_); }
  // body(i), or body(lo, hi) per chunk, over [begin, end): one static chunk
  // per card thread, chunk k on thread k (so the placement decides where).
  template <class F>
  void parallel_for(std::int64_t begin, std::int64_t end, F&& body) const {
    using Body = std::remove_reference_t<F>;
    auto chunk = [](void* ctx, std::int64_t lo, std::int64_t hi) {
      Body& f = *static_cast<Body*>(ctx);
      if constexpr (std::is_invocable_v<Body&, std::int64_t, std::int64_t>) {
        f(lo, hi);
      } else {
        for (std::int64_t i = lo; i < hi; ++i) f(i);
      }
    };
    detail::card_parallel_for(impl_, chunk, const_cast<void*>(static_cast<const void*>(&body)),
                              begin, end);
  }

 private:
  void* impl_;
};

namespace detail {
// Submits a device task whose regions card_enter / cuda_enter recorded; the
// record is dropped again if the submission fails.
template <class Proxy>
void submit_entered(void* entered, std::span<const dep> deps, Proxy&& proxy,
                    const task_options& task) {
  try {
    submit_callable(deps, std::forward<Proxy>(proxy), task);
  } catch (...) {
    card_leave(entered, false);
    throw;
  }
  card_leave(entered, true);
}

template <class F>
void card_trampoline(void* args, void* ctx) {
  card_context c(ctx);
  (*static_cast<F*>(args))(c);
}
}  // namespace detail

template <class F>
requires std::is_invocable_v < std::decay_t<F>
&, card_context& > void spawn(std::span<const dep> deps, F&& body, const device_options& opts) {
  using Body = std::decay_t<F>;
  static_assert(std::is_trivially_copyable_v<Body>,
                "a card task's body is copied to the card byte for byte: capture only "
                "trivially copyable values (pointers, sizes) and reach data through map()");
  struct Proxy {
    Body body;
    std::vector<dep> deps;
    device_options opts;
    void operator()() {
      detail::card_run(int(opts.device), &detail::card_trampoline<Body>, &body, sizeof(Body),
                       alignof(Body), deps.data(), deps.size(), opts.copy_deps, opts.copies.data(),
                       opts.copies.size());
    }
  };
  void* entered = detail::card_enter(int(opts.device), deps.data(), deps.size(), opts.copy_deps,
                                     opts.copies.data(), opts.copies.size());
  detail::submit_entered(entered, deps,
                         Proxy{std::forward<F>(body), {deps.begin(), deps.end()}, opts}, opts.task);
}

template <class F>
requires std::is_invocable_v < std::decay_t<F>
&, card_context& >
       void spawn(std::initializer_list<dep> deps, F&& body, const device_options& opts) {
  spawn(std::span<const dep>(deps.begin(), deps.size()), std::forward<F>(body), opts);
}

// The card's time and energy so far (all zero without a card).
struct card_energy {
  double seconds = 0, joules = 0, busy_core_s = 0, busy_thread_s = 0;
  std::uint64_t bytes_to_card = 0, bytes_to_host = 0;
  double transfer_s = 0;
  std::uint64_t launches = 0;
  long pid = -1;  // the card process (-1: none)
  bool alive = false;
  // Data kept on the card: card-task regions copied in, regions a card task
  // found already current on the card, and regions copied back to the host.
  std::uint64_t copies_in = 0, resident_hits = 0, copies_back = 0;
  double freq_ghz = 0;  // the card's P-state now (emulated DVFS)
};
JOULE_EXPORT card_energy card_status();

// The card's emulated DVFS (JOULE_CARD_FREQS): its P-states in GHz, highest
// first (empty without a card), and a change of P-state, which takes effect
// for the work the card does from then on (an unknown frequency or no card
// throws joule::error).
JOULE_EXPORT std::vector<double> card_frequencies();
JOULE_EXPORT void set_card_frequency(double ghz);

}  // namespace joule
