// Cabrera et al.'s splitter with the card as a device (joule/split.hpp): the
// split converges where the objective says for measured rates and powers,
// the power models come from the configuration, bad options are errors,
// and split_iteration runs real iterations on the host and the emulated
// card with correct results, moving work away from the slower device.
#include <gtest/gtest.h>
#include <joule/split.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "error_of.hpp"

namespace {

joule::runtime card_runtime() {
  return joule::runtime{{"JOULE_CARD", "emulated"},
                        {"JOULE_CARD_TOPOLOGY", "package:1 core:4 pu:2"},
                        {"JOULE_CARD_AFFINITY", "balanced"},
                        {"JOULE_WORKERS", "2"}};
}

struct Rates {
  double host, card;  // units per second
};

// Feeds `iters` iterations of n units timed from the rates.
void run(joule::work_splitter& s, Rates r, int iters, std::int64_t n = 1000000) {
  for (int i = 0; i < iters; ++i) {
    const std::int64_t cut = s.cut(n);
    s.record(cut, double(cut) / r.host, n - cut, double(n - cut) / r.card);
  }
}

// The objective's value of giving the card share w (Cabrera et al.'s estimate).
double estimate(const char* obj, double w, Rates r, joule::device_power h, joule::device_power c) {
  const double th = (1 - w) / r.host, tc = w / r.card, t = std::max(th, tc);
  const double e =
      h.busy_watts * th + h.idle_watts * (t - th) + c.busy_watts * tc + c.idle_watts * (t - tc);
  return std::string(obj) == "time" ? t : std::string(obj) == "energy" ? e : e * t;
}

TEST(CardSplit, TimeConvergesToTheRateProportionalSplit) {
  auto rt = card_runtime();
  joule::work_splitter s({.objective = "time", .host = {100, 20}, .card = {50, 30}});
  EXPECT_DOUBLE_EQ(s.card_share(), 0.5);
  run(s, {3e6, 1e6}, 80);
  EXPECT_NEAR(s.card_share(), 0.25, 0.01);
  EXPECT_TRUE(s.converged());
}

TEST(CardSplit, EveryObjectiveReachesItsSweepMinimum) {
  auto rt = card_runtime();
  const joule::device_power host{300, 50}, card{40, 20};  // the card: slower, far less power
  const Rates r{3e6, 1e6};
  for (const char* obj : {"time", "energy", "edp"}) {
    joule::work_splitter s({.objective = obj, .host = host, .card = card});
    run(s, r, 120);
    double best = 1e300;
    for (int i = 0; i <= 1000; ++i) best = std::min(best, estimate(obj, i / 1000.0, r, host, card));
    EXPECT_LE(estimate(obj, s.card_share(), r, host, card), best * 1.01) << obj;
  }
}

TEST(CardSplit, PowerModelsComeFromTheConfiguration) {
  auto rt = card_runtime();
  joule::work_splitter s;
  // 4 cores x 2 PUs, all 8 threads: 90 W + 4 x 1.2 W + 8 x 0.15 W.
  EXPECT_DOUBLE_EQ(s.card_power().busy_watts, 96.0);
  EXPECT_DOUBLE_EQ(s.card_power().idle_watts, 90.0);
  // 2 workers at JOULE_POWER_BUSY's 2.4 GHz point, 36.3 W, and 14.52 W idle.
  EXPECT_DOUBLE_EQ(s.host_power().busy_watts, 72.6);
  EXPECT_DOUBLE_EQ(s.host_power().idle_watts, 29.04);
}

TEST(CardSplit, BadOptionsAreErrors) {
  auto rt = card_runtime();
  const auto message = [](const joule::split_options& o) {
    return joule_test::error_of([&] { joule::work_splitter s(o); });
  };
  EXPECT_EQ(message({.objective = "power"}),
            "joule::work_splitter: unknown objective 'power' (allowed: energy, time, edp)");
  EXPECT_EQ(message({.host = {-1, 0}}), "joule::work_splitter: negative power for the host");
  EXPECT_EQ(message({.delta = 0.001}), "joule::work_splitter: need 0 < delta_min <= delta");
}

TEST(CardSplit, IterationsOnHostAndCardMoveWorkFromTheSlowerDevice) {
  auto rt = card_runtime();
  const std::int64_t n = 20000;
  std::vector<double> xv(static_cast<std::size_t>(n)), yv(static_cast<std::size_t>(n));
  double *x = xv.data(), *y = yv.data();
  joule::work_splitter s({.objective = "time"});
  const joule::card_energy before = joule::card_status();
  for (int it = 0; it < 12; ++it) {
    for (std::int64_t i = 0; i < n; ++i) xv[std::size_t(i)] = double(i + it);
    joule::split_iteration(
        s, n, 2000,
        [=](std::int64_t lo, std::int64_t hi) {
          for (std::int64_t i = lo; i < hi; ++i) y[i] = 2 * x[i];
        },
        [=](joule::card_context& c, std::int64_t lo, std::int64_t hi) {
          const double* cx = c.map(x + lo);
          double* cy = c.map(y + lo);
          for (std::int64_t i = 0; i < hi - lo; ++i) {  // the same result, 200 times the work
            double v = 0;
            for (int k = 0; k < 200; ++k) v = v * 0.5 + cx[i];
            cy[i] = 2 * cx[i] + (v - v);
          }
        },
        [=](std::int64_t lo, std::int64_t hi) {
          return std::vector<joule::dep>{joule::in(x + lo, std::size_t(hi - lo)),
                                         joule::out(y + lo, std::size_t(hi - lo))};
        });
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_EQ(yv[std::size_t(i)], 2.0 * double(i + it)) << "iteration " << it << " i " << i;
  }
  EXPECT_LT(s.card_share(), 0.4);  // started at 0.5; the card is far slower here
  EXPECT_GT(joule::card_status().launches, before.launches);
}

}  // namespace
