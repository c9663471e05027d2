// joule-advisor validate: seed-002's model fitted on the runs of its
// measurement plan (compact on one core, scatter one thread per core) and
// checked on the other runs measured on the emulated card, 2 cores x 4
// contexts with one host CPU per card core (apps/card_bench/runs; the
// figures are in docs/offload.md, "The advisor against these runs").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "advise.hpp"
#include "run_command.hpp"
#include "validate.hpp"

namespace ja = joule::advisor;

namespace {

ja::Validation validate(const std::string& kernel, const std::vector<std::string>& train = {}) {
  ja::AdviseArgs a;
  a.card_topology = "package:1 core:2 pu:4";
  const std::vector<ja::Run> runs =
      ja::read_all_runs({std::string(JOULE_CARD_RUNS_DIR) + "/" + kernel + "-2x4.csv"});
  ja::DeviceModel m = ja::unfitted_model(a, ja::Device::card, runs);
  return ja::validate_device(m, runs, ja::parse_train(train));
}

std::pair<int, std::string> run(const std::string& args) {
  return joule_test::run_status(std::string(JOULE_ADVISOR_EXE) + " " + args);
}

}  // namespace

TEST(AdvisorValidate, ThePlanTrainsOnOneCoreAndOneThreadPerCore) {
  using joule::offload::Affinity;
  const auto topo = joule::offload::CardTopology::from_synthetic("package:1 core:2 pu:4");
  const auto trains = [&topo](const ja::TrainSpec& spec, Affinity a, int threads) {
    ja::Run r;
    r.placement = a;
    r.threads = threads;
    return ja::in_training(spec, topo, r);
  };
  const ja::TrainSpec plan = ja::parse_train({"plan"});
  EXPECT_TRUE(trains(plan, Affinity::compact, 1));
  EXPECT_TRUE(trains(plan, Affinity::compact, 4));
  EXPECT_FALSE(trains(plan, Affinity::compact, 6));
  EXPECT_TRUE(trains(plan, Affinity::scatter, 2));
  EXPECT_FALSE(trains(plan, Affinity::scatter, 3));
  EXPECT_FALSE(trains(plan, Affinity::balanced, 2));
  const ja::TrainSpec given = ja::parse_train({"balanced:2,4", "compact:8"});
  EXPECT_TRUE(trains(given, Affinity::balanced, 2));
  EXPECT_TRUE(trains(given, Affinity::compact, 8));
  EXPECT_FALSE(trains(given, Affinity::compact, 2));
}

TEST(AdvisorValidate, ComputeKernelHeldOutErrorUnder15Percent) {
  const ja::Validation v = validate("compute");
  EXPECT_EQ(v.fit.runs, 6);
  EXPECT_EQ(v.held.size(), 10u);
  EXPECT_LT(v.time_mean, 0.15);
  EXPECT_LT(v.energy_mean, 0.15);
  EXPECT_LT(v.time_max, 0.15);
  EXPECT_LT(v.energy_max, 0.15);
  RecordProperty("time_mean_pct", std::to_string(100 * v.time_mean));
  RecordProperty("energy_mean_pct", std::to_string(100 * v.energy_mean));
}

// The memory kernel is the model's known miss on this emulation (about 27%
// mean): seed-002 combines within-core and cross-core stalls with max (a
// hardware thread hides the others' memory stalls), but a card core here is
// one host CPU time-sliced between its threads, which hides nothing. Runs
// with one thread per core are predicted well; every run with both cores
// busy and a shared core is predicted too fast. If this fails, the model or
// the emulation changed: update docs/offload.md.
TEST(AdvisorValidate, MemoryKernelMissesWhereThreadsShareATimeSlicedCore) {
  const ja::Validation v = validate("memory");
  ASSERT_EQ(v.held.size(), 10u);
  for (const ja::HeldOut& h : v.held) {
    const auto topo = joule::offload::CardTopology::from_synthetic("package:1 core:2 pu:4");
    const ja::Shape s = ja::shape_of(topo, h.run.threads, h.run.placement);
    if (s.busiest == 1) {
      EXPECT_LT(std::abs(h.time_err), 0.15) << h.run.where;
      EXPECT_LT(std::abs(h.energy_err), 0.15) << h.run.where;
    } else if (s.cores == 2) {
      EXPECT_LT(h.time_err, -0.1) << h.run.where;
    }
  }
  EXPECT_GT(v.time_mean, 0.15);
  RecordProperty("time_mean_pct", std::to_string(100 * v.time_mean));
}

TEST(AdvisorValidate, CommandLinePrintsEveryHeldOutRunAndChecksTheBound) {
  const std::string dir = JOULE_CARD_RUNS_DIR;
  const std::string topo = " --card-topology 'package:1 core:2 pu:4'";
  auto [rc, out] = run("validate " + dir + "/compute-2x4.csv" + topo + " --max-error 15");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("held out: 10 card runs"), std::string::npos) << out;
  EXPECT_NE(out.find("card 6 threads compact (2 cores, up to 4 per core) 1.053 GHz"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("held-out error: time mean"), std::string::npos) << out;
  std::tie(rc, out) = run("validate " + dir + "/memory-2x4.csv" + topo + " --max-error 15");
  EXPECT_EQ(rc, 3) << out;
  EXPECT_NE(out.find("card: mean held-out error above 15%"), std::string::npos) << out;
  std::tie(rc, out) = run("validate " + dir + "/memory-2x4.csv" + topo + " --train scatter:x");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("--train 'scatter:x': 'x' is not a thread count (allowed: plan, or "
                     "PLACEMENT:T,T,..."),
            std::string::npos)
      << out;
  std::tie(rc, out) =
      run("validate " + dir + "/memory-2x4.csv" + topo + " --train compact:1,2 --train x");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("--train 'x': no ':'"), std::string::npos) << out;
}
