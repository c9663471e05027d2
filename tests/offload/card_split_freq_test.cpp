// The work splitter choosing the card's P-state (split_options::card_freq,
// JOULE_CARD_FREQ=auto; docs/offload.md "Choosing the card's frequency").
// The card: one core, one thread, P-states 1, 0.5 and 0.25 GHz, 0 W idle
// and 59 W busy at 1 GHz (all dynamic, so (f/f_max)^3 of it at f); the
// host: 60 W busy, 20 W idle. With the card's speed following f, Cabrera et
// al.'s energy estimate at the balanced split is (60 + 59 f^3) / (1 + f) per unit
// of host rate: 59.5 at 1 GHz, 44.9 at 0.5, 48.7 at 0.25 — the energy
// objective should end at 0.5 GHz, the time objective (1 / (1 + f)) at 1.
#include <gtest/gtest.h>
#include <joule/split.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

joule::runtime card_runtime(const char* freq = "0") {
  return joule::runtime{
      {"JOULE_CARD", "emulated"},           {"JOULE_CARD_TOPOLOGY", "package:1 core:1 pu:1"},
      {"JOULE_CARD_FREQS", "1.0,0.5,0.25"}, {"JOULE_CARD_FREQ", freq},
      {"JOULE_CARD_POWER", "0,29.5,29.5"},  {"JOULE_WORKERS", "2"}};
}

constexpr joule::device_power kHost{60, 20};

joule::split_options options(const char* objective, const char* card_freq = "auto") {
  return {.objective = objective, .host = kHost, .card_freq = card_freq};
}

// Feeds iterations of n units timed from the host's rate and the card's,
// which follows the card's P-state: f^speed_exp (1: the emulated card's
// speed model, f_max = 1 GHz).
void feed(joule::work_splitter& s, int iters, std::int64_t n = 1000000, double speed_exp = 1) {
  const double host_rate = 1e6, card_rate_top = 1e6;
  for (int i = 0; i < iters; ++i) {
    const double card_rate = card_rate_top * std::pow(s.card_freq_ghz(), speed_exp);
    const std::int64_t cut = s.cut(n);
    s.record(cut, double(cut) / host_rate, n - cut, double(n - cut) / card_rate);
  }
}

TEST(CardSplitFreq, EnergyObjectiveSettlesAtTheCheapestPState) {
  auto rt = card_runtime();
  {
    joule::work_splitter s(options("energy"));
    EXPECT_DOUBLE_EQ(s.card_freq_ghz(), 1.0);
    EXPECT_FALSE(s.card_freq_settled());
    feed(s, 200);
    EXPECT_TRUE(s.card_freq_settled());
    EXPECT_DOUBLE_EQ(s.card_freq_ghz(), 0.5);
    EXPECT_DOUBLE_EQ(joule::card_status().freq_ghz, 0.5);
    EXPECT_DOUBLE_EQ(s.card_power().busy_watts, 59.0 / 8);
    EXPECT_NEAR(s.card_share(), 1.0 / 3, 0.01);  // the balance for card rate 0.5 : 1
    EXPECT_TRUE(s.converged());
  }
  // The destructor puts the card back where it found it.
  EXPECT_DOUBLE_EQ(joule::card_status().freq_ghz, 1.0);
}

TEST(CardSplitFreq, TimeObjectiveKeepsTheTopPState) {
  auto rt = card_runtime();
  joule::work_splitter s(options("time"));
  feed(s, 200);
  EXPECT_TRUE(s.card_freq_settled());
  EXPECT_DOUBLE_EQ(s.card_freq_ghz(), 1.0);
  EXPECT_DOUBLE_EQ(joule::card_status().freq_ghz, 1.0);
  EXPECT_NEAR(s.card_share(), 0.5, 0.01);
}

// The splitter's guess (speed ~ f) promises 0.5 GHz, but this card slows
// down as f^3 there: at 0.5 GHz it gets 11% of the work and the iteration
// costs 59.9 instead of 59.5. The measurement decides: back to 1 GHz.
TEST(CardSplitFreq, AMeasuredLossGoesBack) {
  auto rt = card_runtime();
  joule::work_splitter s(options("energy"));
  feed(s, 200, 1000000, 3);
  EXPECT_TRUE(s.card_freq_settled());
  EXPECT_DOUBLE_EQ(s.card_freq_ghz(), 1.0);
  EXPECT_DOUBLE_EQ(joule::card_status().freq_ghz, 1.0);
  EXPECT_DOUBLE_EQ(s.card_power().busy_watts, 59.0);
  EXPECT_NEAR(s.card_share(), 0.5, 0.01);
}

TEST(CardSplitFreq, FixedKeepsTheCardsPStateAndAutoComesFromTheConfiguration) {
  {
    auto rt = card_runtime();
    joule::work_splitter s(options("energy", "fixed"));
    feed(s, 200);
    EXPECT_TRUE(s.card_freq_settled());
    EXPECT_DOUBLE_EQ(s.card_freq_ghz(), 1.0);
  }
  auto rt = card_runtime("auto");
  EXPECT_DOUBLE_EQ(joule::card_status().freq_ghz, 1.0);  // auto starts at the highest
  joule::work_splitter s({.objective = "energy", .host = kHost});
  feed(s, 200);
  EXPECT_DOUBLE_EQ(s.card_freq_ghz(), 0.5);
}

TEST(CardSplitFreq, AnotherWorkloadRestartsTheSearch) {
  auto rt = card_runtime();
  joule::work_splitter s(options("energy"));
  feed(s, 200);
  ASSERT_TRUE(s.card_freq_settled());
  feed(s, 1, 500000);  // another iteration size: what was best may not be
  EXPECT_FALSE(s.card_freq_settled());
  feed(s, 200, 500000);
  EXPECT_TRUE(s.card_freq_settled());
  EXPECT_DOUBLE_EQ(s.card_freq_ghz(), 0.5);
}

TEST(CardSplitFreq, BadCardFreqIsAnError) {
  try {
    joule::runtime bad{{"JOULE_CARD", "emulated"}, {"JOULE_CARD_FREQ", "fast"}};
    ADD_FAILURE() << "no error";
  } catch (const joule::error& e) {
    EXPECT_NE(std::string(e.what()).find("JOULE_CARD_FREQ=fast"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("or auto"), std::string::npos) << e.what();
  }
  auto rt = card_runtime();
  try {
    joule::work_splitter s(options("energy", "lowest"));
    ADD_FAILURE() << "no error";
  } catch (const joule::error& e) {
    EXPECT_EQ(std::string(e.what()),
              "joule::work_splitter: unknown card_freq 'lowest' (allowed: auto, fixed)");
  }
}

// Real iterations: the same dependent chain per element on the host (one
// worker) and on the card (one thread), so their rates are alike at 1 GHz.
// The card's thread gets a shorter chain than the host's two workers, so
// that with the card's fixed costs per iteration (launch, copies, results
// home: several ms here) its rate is about the host's.
constexpr int kHostChain = 1000, kCardChain = 400;
// A host that costs more than the fed tests' (120 W busy, 20 W idle): at
// equal rates the landscape (card at 1, 0.5, 0.25 GHz) is 1 : 0.69 : 1.06,
// and still 1 : 0.74 : 0.98 at a card rate 0.7 of the host's.
constexpr joule::device_power kRealHost{120, 20};

struct Iterations {
  std::int64_t n = 40000;
  std::vector<double> xv = std::vector<double>(std::size_t(n), 1.0);
  std::vector<double> yv = std::vector<double>(std::size_t(n));
  std::atomic<std::int64_t> host_busy_ns{0};

  // y = 2x through a dependent chain of `len` multiply-adds.
  static double chain(double x, int len) {
    double v = 0;
    for (int k = 0; k < len; ++k) v = v * 0.5 + x;
    return 2 * x + (v - v);
  }

  // Runs one iteration; returns its seconds.
  double run(joule::work_splitter& s) {
    double *x = xv.data(), *y = yv.data();
    std::atomic<std::int64_t>* busy = &host_busy_ns;
    const auto start = std::chrono::steady_clock::now();
    joule::split_iteration(
        s, n, 2000,
        [=](std::int64_t lo, std::int64_t hi) {
          const auto t0 = std::chrono::steady_clock::now();
          for (std::int64_t i = lo; i < hi; ++i) y[i] = chain(x[i], kHostChain);
          *busy += (std::chrono::steady_clock::now() - t0).count();
        },
        [=](joule::card_context& c, std::int64_t lo, std::int64_t hi) {
          const double* cx = c.map(x + lo);
          double* cy = c.map(y + lo);
          for (std::int64_t i = 0; i < hi - lo; ++i) cy[i] = chain(cx[i], kCardChain);
        },
        [=](std::int64_t lo, std::int64_t hi) {
          return std::vector<joule::dep>{joule::in(x + lo, std::size_t(hi - lo)),
                                         joule::out(y + lo, std::size_t(hi - lo))};
        });
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // One iteration's joules: the card's meter, and the host (two workers, so
  // half the summed busy seconds) at kRealHost's busy watts while its
  // kernel ran and idle for the rest of the iteration.
  double energy_of_iteration(joule::work_splitter& s) {
    const double card0 = joule::card_status().joules;
    host_busy_ns = 0;
    const double wall = run(s);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the card's busy time lands
    const double busy = double(host_busy_ns.load()) * 1e-9;
    const double host =
        kRealHost.busy_watts * busy / 2 + kRealHost.idle_watts * std::max(0.0, wall - busy / 2);
    return joule::card_status().joules - card0 + host;
  }

  // The least of 12 iterations: load from other processes only adds.
  double least_energy(joule::work_splitter& s) {
    double best = 1e300;
    for (int i = 0; i < 12; ++i) best = std::min(best, energy_of_iteration(s));
    return best;
  }
};

joule::split_options real(const char* objective, const char* card_freq) {
  return {.objective = objective, .host = kRealHost, .delta_min = 0.02, .card_freq = card_freq};
}

struct Outcome {
  double at_top = 0, chosen = 0, ghz = 0;  // joules per iteration; the P-state chosen
  bool settled = false;
};

Outcome energy_at_top_and_chosen(Iterations& it) {
  Outcome o;
  {
    joule::work_splitter top(real("energy", "fixed"));
    for (int i = 0; i < 20; ++i) it.run(top);
    o.at_top = it.least_energy(top);
  }
  joule::work_splitter s(real("energy", "auto"));
  for (int i = 0; i < 150 && !s.card_freq_settled(); ++i) it.run(s);
  o.settled = s.card_freq_settled();
  o.ghz = s.card_freq_ghz();
  o.chosen = it.least_energy(s);
  std::printf("energy per iteration: %.4f J at 1 GHz, %.4f J at %g GHz (card share %.3f): %.2fx\n",
              o.at_top, o.chosen, o.ghz, s.card_share(), o.chosen / o.at_top);
  return o;
}

// A trial P-state is judged on three iterations against three at the kept
// one; a burst of load from other processes during the trial can make a
// better P-state measure worse, and the search then stays (as it should on
// what it measured). So up to three attempts, each from the top P-state.
TEST(CardSplitFreq, OnTheEmulatedCardALowerPStateSpendsLessPerIteration) {
  auto rt = card_runtime();
  Iterations it;
  Outcome o;
  for (int attempt = 0; attempt < 3; ++attempt) {
    o = energy_at_top_and_chosen(it);
    for (std::size_t i = 0; i < it.yv.size(); ++i) ASSERT_EQ(it.yv[i], 2.0) << i;
    EXPECT_DOUBLE_EQ(joule::card_status().freq_ghz, 1.0);  // put back by the destructor
    if (o.ghz < 1.0 && o.chosen < 0.95 * o.at_top) break;
  }
  EXPECT_TRUE(o.settled);
  EXPECT_LT(o.ghz, 1.0);
  // The estimate says about 30% less at 0.5 GHz; load and the card's fixed
  // costs blur it, so only "clearly less" is asserted.
  EXPECT_LT(o.chosen, 0.95 * o.at_top)
      << o.chosen << " J at " << o.ghz << " GHz vs " << o.at_top << " J at 1 GHz";
}

TEST(CardSplitFreq, OnTheEmulatedCardTheTimeObjectiveStaysAtTheTop) {
  auto rt = card_runtime();
  Iterations it;
  joule::work_splitter s(real("time", "auto"));
  for (int i = 0; i < 150 && !s.card_freq_settled(); ++i) it.run(s);
  EXPECT_TRUE(s.card_freq_settled());
  EXPECT_DOUBLE_EQ(s.card_freq_ghz(), 1.0);
  std::printf("time objective: card share %.3f at %g GHz\n", s.card_share(), s.card_freq_ghz());
}

}  // namespace
