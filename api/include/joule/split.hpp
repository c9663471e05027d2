// Splitting iterative work between the host's cores and the card with
// Cabrera et al.'s splitter (docs/offload.md, "Splitting work with the card").
// Every iteration cuts [0, n) into a host part [0, cut) and a card part
// [cut, n); after it, the time each part took and each device's power decide
// the next cut, for the objective JOULE_ENERGY_SPLIT_OBJECTIVE (energy, time
// or edp). The card's power comes from its model (JOULE_CARD_POWER), the
// host's from the platform's (JOULE_POWER_BUSY at the highest frequency and
// JOULE_POWER_IDLE, times the workers) unless given.
//
// With card_freq "auto" (or JOULE_CARD_FREQ=auto) the splitter also picks
// the card's P-state (JOULE_CARD_FREQS), one level per decision: once the
// split has settled, it measures three iterations, proposes the next lower
// P-state (the split re-guessed from the card's rate scaled by f'/f and
// its power at f'), and if the estimate promises a gain runs three there;
// it keeps f' if the least measured objective per unit of work fell by
// more than 2% and goes on, otherwise goes back and stops until the
// workload changes (another n, or the host's rate halving or doubling).
// A given split_options::card power is the card's at the P-state it has when
// the splitter is built; its dynamic part (busy - idle) scales by (f/f0)^3.
// The destructor puts the card back at the P-state it found.
//
// A CUDA GPU as the second device (split_options::device = device::cuda,
// docs/offload-gpu-energy.md, "Splitting work between the CPUs and a GPU"): the GPU's
// part is one CUDA task (joule/cuda.hpp) and its power is fitted from NVML's
// energy counter over each iteration, the CPUs' from RAPL where the
// platform measures energy; energy_source() says which ("gpu: nvml, cpu:
// rapl"), the models stand where nothing is measured. card_freq "auto"
// chooses the GPU's SM clock the same way when the driver lets joule lock
// it; clocks() says whether it could ("clocks fixed (why)").
//
//   joule::work_splitter s;
//   for (int it = 0; it < iters; ++it)
//     joule::split_iteration(s, n, grain,
//         [=](std::int64_t lo, std::int64_t hi) { host_kernel(x, y, lo, hi); },
//         [=](joule::card_context& c, std::int64_t lo, std::int64_t hi) {
//           card_kernel(c.map(x + lo), c.map(y + lo), hi - lo); },
//         [=](std::int64_t lo, std::int64_t hi) {
//           return std::vector<joule::dep>{joule::in(x + lo, hi - lo), joule::out(y + lo, hi -
//           lo)};
//         });
#pragma once

#include <joule/cuda.hpp>
#include <joule/offload.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace joule {

struct device_power {
  double busy_watts = 0;  // while computing
  double idle_watts = 0;  // while waiting for the other device
};

struct split_options {
  const char* objective = nullptr;  // "energy", "time", "edp"; null: JOULE_ENERGY_SPLIT_OBJECTIVE
  device_power host = {};           // zero: the platform's power model
  device_power card = {};           // zero: the card's power model
  double delta = 0.1;               // the splitter's largest step (share of the work)
  double delta_min = 0.005;         // converged when staying beats steps of this size
  // "auto": the splitter also chooses the card's P-state (below); "fixed":
  // it keeps the card's; null: auto when JOULE_CARD_FREQ=auto.
  const char* card_freq = nullptr;
  // The second device: the card (device::mic) or a CUDA GPU (device::cuda,
  // GPU device_num). `card` and card_freq then mean the GPU's power and SM
  // clock; a zero `card` starts from a guess that NVML's energy replaces.
  joule::device device = joule::device::mic;
  int device_num = 0;
  // 0..1: the second device's share, fixed (a baseline: 0 host only, 1 the
  // device only); the splitter then only measures. < 0: the splitter decides.
  double share = -1;
};

// The iterations recorded so far: their summed times and each side's
// joules, measured where a meter read them (NVML, RAPL) in every
// iteration, else its power times its busy and idle seconds.
struct split_totals {
  std::int64_t iterations = 0;
  double seconds = 0;
  double host_joules = 0, device_joules = 0;
  bool host_measured = false, device_measured = false;
};

class JOULE_EXPORT work_splitter {
 public:
  // Starts even (half each). Throws joule::error for an unknown objective,
  // negative powers, a device other than mic or cuda, or (device::cuda) no
  // GPU device_num, naming why.
  explicit work_splitter(const split_options& opt = {});
  ~work_splitter();
  work_splitter(const work_splitter&) = delete;
  work_splitter& operator=(const work_splitter&) = delete;

  double card_share() const;               // the card's share of the next iteration
  std::int64_t cut(std::int64_t n) const;  // host [0, cut), card [cut, n)
  bool converged() const;
  device_power host_power() const;
  device_power card_power() const;  // at the card's P-state now
  // The card's P-state the splitter works with: the one it chose, else the
  // one the card had when the splitter was built (0: no card).
  double card_freq_ghz() const;
  bool card_freq_settled() const;  // not choosing the P-state, or the search has stopped
  joule::device device() const;
  int device_num() const;
  // Where the powers come from: "gpu: nvml, cpu: rapl", "gpu: model (none:
  // <why>), cpu: model", "card: model, cpu: rapl", ...
  std::string energy_source() const;
  // The GPU's SM clock and whether the splitter chooses it ("sm 1980 MHz,
  // clocks fixed (<why>)"), or the card's P-state.
  std::string clocks() const;
  // An iteration starts: the energy counters now (split_iteration calls it;
  // record() then fits the devices' powers from what they measured).
  void start_iteration();
  split_totals totals() const;
  // One iteration's measurement: the units each device did and its seconds
  // (a device that did nothing keeps its last measured rate).
  void record(std::int64_t host_units, double host_s, std::int64_t card_units, double card_s);

 private:
  struct impl;
  std::unique_ptr<impl> p_;
  joule::device device_;
  int device_num_;
};

namespace detail {
// The steady clock in ns since its epoch.
inline std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
// When a GPU's part ran: its body began (the task got a worker) and the GPU
// had done what the body enqueued; 0 until known.
struct device_stamps {
  std::atomic<std::int64_t> begin{0}, end{0};
};
// Inside a CUDA task's body: *ns becomes steady_ns() once the GPU has done
// what the body enqueued on the task's stream (a host function in stream
// order, cuLaunchHostFunc).
JOULE_EXPORT void split_stamp_stream(std::atomic<std::int64_t>* ns);

// One bulk-synchronous iteration over [0, n): the device's part [cut, n)
// spawned by device_part(deps, cut, n, stamps), the host's as a taskloop;
// both timed and recorded in s. The device's time is the GPU's own (from
// its body's start to its kernels' end: `stamps`, set by a GPU's part), or
// else until its outputs are home (the card's: a task that, with every
// worker busy on the host's part, may run only after it).
template <class Host, class DevicePart, class Regions>
void split_step(work_splitter& s, std::int64_t n, std::int64_t grain, Host host,
                DevicePart device_part, Regions regions) {
  using clock = std::chrono::steady_clock;
  const std::int64_t cut = s.cut(n);
  s.start_iteration();
  const clock::time_point start = clock::now();
  clock::time_point device_done = start;
  device_stamps stamps;
  if (cut < n) {
    const std::vector<dep> deps = regions(cut, n);
    device_part(std::span<const dep>(deps), cut, n, stamps);
    std::vector<dep> back;
    for (const dep& d : deps)
      if (d.kind != dep_kind::in) back.push_back({dep_kind::in, d.addr, d.bytes});
    joule::spawn(std::span<const dep>(back), [&device_done] { device_done = clock::now(); });
  }
  if (cut > 0) joule::taskloop(std::int64_t{0}, cut, grain, host);
  const clock::time_point host_done = clock::now();
  joule::taskwait();
  const auto secs = [&](clock::time_point t) {
    return std::chrono::duration<double>(t - start).count();
  };
  double device_s = secs(device_done);
  if (const std::int64_t b = stamps.begin.load(), e = stamps.end.load(); b != 0 && e >= b)
    device_s = double(e - b) * 1e-9;
  s.record(cut, cut > 0 ? secs(host_done) : 0.0, n - cut, cut < n ? device_s : 0.0);
}
}  // namespace detail

// One bulk-synchronous iteration: host(lo, hi) over [0, cut) as a taskloop
// of `grain` iterations, and card(c, lo, hi) over [cut, n) as one card task
// whose dependencies regions(lo, hi) returns (copied with copy_deps; its
// outputs come back to the host before the iteration ends). Waits for both
// and records their times in s.
template <class Host, class Card, class Regions>
requires std::is_invocable_v<Card&, card_context&, std::int64_t, std::int64_t>
void split_iteration(work_splitter& s, std::int64_t n, std::int64_t grain, Host host, Card card,
                     Regions regions) {
  detail::split_step(
      s, n, grain, host,
      [card](std::span<const dep> deps, std::int64_t cut, std::int64_t end,
             detail::device_stamps&) {
        spawn(
            deps, [card, cut, end](card_context& c) { card(c, cut, end); }, device_options{});
      },
      regions);
}

// The same iteration with a GPU (split_options::device = device::cuda): the
// GPU's part gpu(c, lo, hi) over [cut, n) is one CUDA task on GPU
// s.device_num() that enqueues its kernels on c.stream(); its time is the
// GPU's, from the body's start until the GPU has done them.
template <class Host, class Gpu, class Regions>
requires std::is_invocable_v<Gpu&, cuda_context&, std::int64_t, std::int64_t>
void split_iteration(work_splitter& s, std::int64_t n, std::int64_t grain, Host host, Gpu gpu,
                     Regions regions) {
  device_options o;
  o.device = device::cuda;
  o.device_num = s.device_num();
  detail::split_step(
      s, n, grain, host,
      [gpu, o](std::span<const dep> deps, std::int64_t cut, std::int64_t end,
               detail::device_stamps& stamps) {
        spawn(
            deps,
            [gpu, cut, end, &stamps](cuda_context& c) {
              stamps.begin = detail::steady_ns();
              gpu(c, cut, end);
              detail::split_stamp_stream(&stamps.end);
            },
            o);
      },
      regions);
}

}  // namespace joule
