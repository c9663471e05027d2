// The card's emulated DVFS (JOULE_CARD_FREQS / JOULE_CARD_FREQ,
// joule::set_card_frequency): at half the highest frequency the same card
// work keeps the card busy about twice as long, its dynamic energy per busy
// second falls to (1/2)^3, and the splitter's card power follows the
// P-state. A fake card: idle 0 W, 1 W per busy core, 1 W per busy thread,
// so the card's joules are exactly its weighted busy seconds.
#include <gtest/gtest.h>
#include <joule/offload.hpp>
#include <joule/split.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

namespace {

using Settings = std::initializer_list<std::pair<std::string, std::string>>;

joule::runtime fake_card(const char* freq = "0") {
  return joule::runtime{{"JOULE_CARD", "emulated"},
                        {"JOULE_CARD_TOPOLOGY", "package:1 core:2 pu:1"},
                        {"JOULE_CARD_FREQS", "0.5,1.0"},
                        {"JOULE_CARD_FREQ", freq},
                        {"JOULE_CARD_POWER", "0,1,1"}};
}

// One card task that computes for about `ms` milliseconds of card time at
// the highest frequency (a fixed amount of work, calibrated once).
std::int64_t g_iters = 0;
void card_work() {
  double v = 0;
  double* pv = &v;
  const std::int64_t iters = g_iters;
  joule::spawn(
      {joule::inout(pv, 1)},
      [=](joule::card_context& c) {
        double* cv = c.map(pv);
        double x = *cv;
        for (std::int64_t i = 0; i < iters; ++i) x = x * 1.0000001 + 1e-9;
        *cv = x;
      },
      joule::device_options{});
  joule::taskwait();
}

struct Busy {
  double seconds, joules;
};
Busy measure() {
  const joule::card_energy a = joule::card_status();
  card_work();
  // The card adds a job's busy time just after posting its result.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const joule::card_energy b = joule::card_status();
  return {(b.busy_core_s - a.busy_core_s) + (b.busy_thread_s - a.busy_thread_s),
          b.joules - a.joules};
}

std::string error_of(void (*f)()) {
  try {
    f();
  } catch (const joule::error& e) {
    return e.what();
  }
  return "";
}

TEST(CardDvfs, HalfTheFrequencyTakesTwiceTheTimeAndAnEighthOfTheDynamicPower) {
  auto rt = fake_card();
  EXPECT_EQ(joule::card_frequencies(), (std::vector<double>{1.0, 0.5}));
  EXPECT_DOUBLE_EQ(joule::card_status().freq_ghz, 1.0);  // 0: the highest
  g_iters = 10'000'000;
  // Alternating runs, the least busy time of each P-state: other processes
  // on the machine stretch single runs, never shorten them.
  Busy full{1e9, 0}, half{1e9, 0};
  for (int round = 0; round < 3; ++round) {
    joule::set_card_frequency(1.0);
    if (const Busy b = measure(); b.seconds < full.seconds) full = b;
    joule::set_card_frequency(0.5);
    EXPECT_DOUBLE_EQ(joule::card_status().freq_ghz, 0.5);
    if (const Busy b = measure(); b.seconds < half.seconds) half = b;
  }
  const double slowdown = half.seconds / full.seconds;
  EXPECT_GT(slowdown, 1.5) << full.seconds << " s vs " << half.seconds << " s";
  EXPECT_LT(slowdown, 3.0) << full.seconds << " s vs " << half.seconds << " s";
  // Joules per busy second: 1 at f_max, 1/8 at half (the machine's load
  // changes the seconds, not this ratio).
  EXPECT_NEAR(full.joules / full.seconds, 1.0, 0.02);
  EXPECT_NEAR(half.joules / half.seconds, 0.125, 0.01);
  // Less energy for the same work: 2 x the time at 1/8 of the power.
  EXPECT_LT(half.joules, full.joules * 0.4);
}

// A kernel timed inside the card task, on a one-thread card: parallel_for
// runs inline there, and must be slowed for the P-state before it returns,
// as a team's chunks are (else in-task timers, card-bench's, see no change).
double in_task_seconds() {
  double out[2] = {0, 0};
  double* po = out;
  const std::int64_t iters = g_iters;
  joule::spawn(
      {joule::inout(po, 2)},
      [=](joule::card_context& c) {
        double* co = c.map(po);
        const auto t0 = std::chrono::steady_clock::now();
        c.parallel_for(std::int64_t{0}, std::int64_t{1}, [=](std::int64_t) {
          double x = co[0];
          for (std::int64_t i = 0; i < iters; ++i) x = x * 1.0000001 + 1e-9;
          co[0] = x;
        });
        co[1] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      },
      joule::device_options{});
  joule::taskwait();
  return out[1];
}

TEST(CardDvfs, AOneThreadCardSlowsTheKernelInsideTheTask) {
  joule::runtime rt{{"JOULE_CARD", "emulated"},
                    {"JOULE_CARD_TOPOLOGY", "package:1 core:1 pu:1"},
                    {"JOULE_CARD_FREQS", "0.5,1.0"}};
  g_iters = 5'000'000;
  double full = 1e9, half = 1e9;
  for (int round = 0; round < 5; ++round) {
    joule::set_card_frequency(1.0);
    full = std::min(full, in_task_seconds());
    joule::set_card_frequency(0.5);
    half = std::min(half, in_task_seconds());
  }
  // About 2; other processes stretch the emulated slowdown with the work,
  // so only the lower bound is tight (unstretched, it reads about 1.0).
  EXPECT_GT(half / full, 1.5) << full << " s vs " << half << " s";
  EXPECT_LT(half / full, 5.0) << full << " s vs " << half << " s";
}

TEST(CardDvfs, SplitterSeesTheCardsPowerAtItsPState) {
  auto rt = fake_card("0.5");
  EXPECT_DOUBLE_EQ(joule::card_status().freq_ghz, 0.5);
  const double at_half = joule::work_splitter(joule::split_options{}).card_power().busy_watts;
  joule::set_card_frequency(1.0);
  const double at_full = joule::work_splitter(joule::split_options{}).card_power().busy_watts;
  EXPECT_DOUBLE_EQ(at_full, 2 * 1.0 + 2 * 1.0);  // 2 cores + 2 threads at 1 W
  EXPECT_DOUBLE_EQ(at_half, at_full / 8);
}

TEST(CardDvfs, BadPStatesAreErrors) {
  auto start_error = [](Settings s) -> std::string {
    try {
      joule::runtime rt(s);
    } catch (const joule::error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(start_error({{"JOULE_CARD", "emulated"}, {"JOULE_CARD_FREQS", "1.0,fast"}})
                .find("JOULE_CARD_FREQS=1.0,fast: not a positive number; allowed values: a list "
                      "of distinct GHz > 0"),
            std::string::npos);
  EXPECT_NE(start_error({{"JOULE_CARD", "emulated"}, {"JOULE_CARD_FREQS", "1,1"}})
                .find("a P-state given twice"),
            std::string::npos);
  const std::string e = start_error({{"JOULE_CARD", "emulated"},
                                     {"JOULE_CARD_TOPOLOGY", "package:1 core:2 pu:1"},
                                     {"JOULE_CARD_FREQS", "1.0,0.5"},
                                     {"JOULE_CARD_FREQ", "0.7"}});
  EXPECT_NE(e.find("JOULE_CARD_FREQ=0.7: not one of the card's P-states (JOULE_CARD_FREQS: 1, "
                   "0.5 GHz)"),
            std::string::npos)
      << e;
  auto rt = fake_card();
  const std::string e2 = error_of([] { joule::set_card_frequency(0.7); });
  EXPECT_NE(e2.find("0.7 GHz is not one of the card's P-states (1, 0.5 GHz; JOULE_CARD_FREQS)"),
            std::string::npos)
      << e2;
}

}  // namespace
