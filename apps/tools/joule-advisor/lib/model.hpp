// Ramapantulu's energy-time model for one device (the host or the card):
// the thesis's many-core model (Chapter 5, Eqs. 5.1-5.12; docs/references.md)
// with a parametric power model in place of a power meter:
//
//   T = (W/t) · [1 + max(a·(τ−1), m·(f/f_ref)^δ·(1 − s·κ)/(1 − u·c/C))] / f
//   P = P_idle + (p_core·c + p_thread·t)·(f/f_ref)^γ,      E = P·T
//
// t threads, c active cores, τ threads on the busiest core (the critical
// path, Eq. 5.1), f the frequency, C the device's cores, κ the share of thread
// ids whose successor sits on the same core (compact, balanced) — the
// locality term that alone tells balanced from scatter (balanced is Intel's
// KMP_AFFINITY mode; the thesis has only compact and scatter).
// W: work cycles (work + non-memory stalls, Eq. 5.4-5.5), split over t.
// a·(τ−1): within-core contention, stall cycles per work cycle (Eq. 5.6).
// m/(1 − u·c/C): cross-core contention, memory-controller queueing (Eq. 5.9,
// with β_c ∝ 1/(1−ρ_c)); it grows with f because memory stall *cycles*
// grow linearly with f (thesis §3.3.3, Fig. 3.4) — (f/f_ref)^δ with δ = 1
// unless runs at several frequencies let the fit see it (δ = 0: stalls
// stretch with the clock like work, as on the emulated card, whose P-states
// slow everything).
//
// How the two contention terms combine (Contention):
// - overlap: max, the thesis's Eq. 5.12 — a core's hardware threads hide each
//   other's memory stalls (SMT). The default for real cards.
// - serial: the core's threads run in turn (one time-sliced CPU per core,
//   the emulated card), so nothing is hidden and stalls add up. A core with
//   k threads does W/t·(1 + a·(k−1)) cycles; cores finish in order of their
//   load, and every cycle is stretched by the queueing of the cores still
//   busy then: with equal loads T = (W/t)·(1 + a·(τ−1))·(1 + q(c)) / f.
#pragma once

#include <string>
#include <vector>

#include "card_topology.hpp"
#include "placement.hpp"
#include "runs.hpp"

namespace joule::advisor {

enum class Contention { overlap, serial };
const char* contention_name(Contention c);

struct TimeParams {
  double work_cycles = 1e9;   // W
  double intra = 0.3;         // a
  double mem = 0.2;           // m
  double queue = 0.5;         // u in [0, 1): controller load at all C cores
  double locality = 0;        // s in [0, 1]
  double stall_freq_exp = 1;  // δ in [0, 1]: memory stall time ∝ (f/f_ref)^(δ−1)
  Contention contention = Contention::overlap;
};

struct PowerParams {
  double idle_w = 100;    // P_idle
  double core_w = 1;      // p_core, at f_ref
  double thread_w = 0.1;  // p_thread, at f_ref
  double gamma = 2;       // γ
};

struct DeviceModel {
  Device device = Device::card;
  card_affinity::CardTopology topology = card_affinity::CardTopology::uniform(1, 60, 4);
  std::vector<double> freqs_ghz;  // the frequencies configurations may use
  double f_ref_ghz = 1;           // the highest of them
  TimeParams time;
  PowerParams power;
};

// What the model needs to know about a placement: derived with the
// placement library, so the advisor and the card agree.
struct Shape {
  int threads = 0, cores = 0, busiest = 0;  // t, c, τ
  double contiguity = 0;                    // κ
  std::vector<int> load;                    // load[k]: cores running k threads (k = 0..τ)
};
Shape shape_of(const card_affinity::CardTopology& topo, int threads,
               card_affinity::Affinity placement);

struct Prediction {
  double time_s = 0, power_w = 0, energy_j = 0;
};
Prediction predict(const DeviceModel& m, const Shape& s, double freq_ghz);

}  // namespace joule::advisor
