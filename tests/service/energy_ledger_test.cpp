// Per-job RAPL energy on fake powercap trees: jobs on their own packages get
// their package's energy (wrap-around included), jobs sharing a package get
// the package's figure marked "node", and no zone means scope "none".
#include "energy_ledger.hpp"

#include <gtest/gtest.h>

#include "../platform/fake_tree.hpp"

namespace joule::service {
namespace {

const std::string kZone = "/sys/class/powercap/intel-rapl:";

class Ledger : public ::testing::Test {
 protected:
  // Two packages, each with a dram subzone; counters wrap at 1000 J.
  void SetUp() override {
    for (int p = 0; p < 2; ++p) {
      const std::string d = kZone + std::to_string(p);
      tree_.write(d + "/name", "package-" + std::to_string(p) + "\n");
      tree_.write(d + "/max_energy_range_uj", "1000000000\n");
      tree_.write(d + ":0/name", "dram\n");
      tree_.write(d + ":0/max_energy_range_uj", "1000000000\n");
      set(p, 0);
      set_dram(p, 0);
    }
  }
  void set(int package, std::uint64_t uj) {
    tree_.write(kZone + std::to_string(package) + "/energy_uj", std::to_string(uj) + "\n");
  }
  void set_dram(int package, std::uint64_t uj) {
    tree_.write(kZone + std::to_string(package) + ":0/energy_uj", std::to_string(uj) + "\n");
  }
  test::FakeTree tree_;
  platform::Sysfs fs_{tree_.root()};
};

TEST_F(Ledger, FindsPackagesAndSubzones) {
  EnergyLedger l(fs_);
  ASSERT_TRUE(l.available()) << l.why();
  const auto t = l.totals();
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].name, "package-0");
  EXPECT_EQ(t[1].name, "package-0/dram");
  EXPECT_EQ(t[1].chip, 0);
  EXPECT_EQ(t[3].name, "package-1/dram");
  EXPECT_EQ(t[3].chip, 1);
}

TEST_F(Ledger, JobsOnTheirOwnPackagesGetTheirOwnEnergy) {
  EnergyLedger l(fs_);
  l.job_started("a", {0}, 1);
  l.job_started("b", {1}, 2);
  set(0, 10'000'000);  // +10 J on package 0
  set_dram(0, 2'000'000);
  set(1, 30'000'000);  // +30 J on package 1
  l.sample(3);
  set(0, 999'000'000);  // +989 J
  l.sample(4);
  set(0, 1'000'000);   // wrapped at 1000 J: +1 J +1 J
  set(1, 31'000'000);  // +1 J
  const JobEnergy a = l.job_ended("a", 5);
  EXPECT_EQ(a.scope, "package");
  EXPECT_NEAR(a.joules, 10 + 2 + 989 + 2, 1e-6);
  set(1, 35'000'000);  // +4 J after a ended
  const JobEnergy b = l.job_ended("b", 6);
  EXPECT_EQ(b.scope, "package");
  EXPECT_NEAR(b.joules, 30 + 1 + 4, 1e-6);
  const auto t = l.totals();
  EXPECT_NEAR(t[0].joules, 10 + 989 + 2, 1e-6);
  EXPECT_NEAR(t[1].joules, 2, 1e-6);
  EXPECT_NEAR(t[2].joules, 35, 1e-6);
}

TEST_F(Ledger, EnergyBeforeAJobStartsIsNotItsOwn) {
  set(0, 500'000'000);
  EnergyLedger l(fs_);
  set(0, 600'000'000);  // before the job: not credited
  l.job_started("a", {0}, 1);
  set(0, 650'000'000);
  EXPECT_NEAR(l.job_ended("a", 2).joules, 50, 1e-6);
}

TEST_F(Ledger, JobsSharingAPackageAreNodeScope) {
  EnergyLedger l(fs_);
  l.job_started("a", {0}, 1);
  set(0, 5'000'000);
  l.job_started("b", {0}, 2);  // a's first 5 J were its alone
  set(0, 12'000'000);
  const JobEnergy a = l.job_ended("a", 3);
  set(0, 20'000'000);
  const JobEnergy b = l.job_ended("b", 4);
  EXPECT_EQ(a.scope, "node");
  EXPECT_EQ(b.scope, "node");
  EXPECT_NEAR(a.joules, 12, 1e-6);
  EXPECT_NEAR(b.joules, 15, 1e-6);
}

TEST_F(Ledger, UpdateAddsAPackage) {
  EnergyLedger l(fs_);
  l.job_started("a", {0}, 1);
  set(1, 7'000'000);  // not a's yet
  l.update_job("a", {0, 1}, 2);
  set(0, 1'000'000);
  set(1, 10'000'000);
  const JobEnergy a = l.job_ended("a", 3);
  EXPECT_EQ(a.scope, "package");
  EXPECT_NEAR(a.joules, 1 + 3, 1e-6);
}

TEST_F(Ledger, UnknownJobAndUnmeteredPackageAreNone) {
  EnergyLedger l(fs_);
  const JobEnergy u = l.job_ended("never-started", 1);
  EXPECT_EQ(u.scope, "none");
  EXPECT_EQ(u.joules, 0);
  l.job_started("c", {5}, 2);  // no package-5 zone
  set(0, 9'000'000);
  EXPECT_EQ(l.job_ended("c", 3).scope, "none");
}

TEST(LedgerNoZones, NoZoneMeansScopeNone) {
  test::FakeTree tree;
  tree.write("/sys/class/powercap/intel-rapl:0/name", "package-0\n");  // no energy_uj
  EnergyLedger l(platform::Sysfs(tree.root()));
  EXPECT_FALSE(l.available());
  EXPECT_NE(l.why().find("no readable intel-rapl energy_uj"), std::string::npos) << l.why();
  l.job_started("a", {0}, 1);
  const JobEnergy a = l.job_ended("a", 2);
  EXPECT_EQ(a.scope, "none");
  EXPECT_EQ(a.joules, 0);
  EXPECT_TRUE(l.totals().empty());
}

}  // namespace
}  // namespace joule::service
