// The worker count and oversubscription (engine/cpu_budget.hpp): the rule
// on made-up numbers, then the runtime started on a fake cgroup tree
// (JOULE_CGROUP_ROOT) with its default worker count, oversubscribed() and
// the configuration dump.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "config_fixture.hpp"
#include "cpu_budget.hpp"
#include "fake_cgroup.hpp"
#include "runtime.hpp"

namespace joule::engine {
namespace {

using joule_test::FakeCgroup;

std::optional<core::CpuQuota> quota(double cpus) { return core::CpuQuota{cpus, "cpu.max"}; }

EngineSettings with(int workers, Oversubscription mode = Oversubscription::automatic) {
  EngineSettings s;
  s.workers = workers;
  s.oversubscribed = mode;
  return s;
}

TEST(CpuBudget, DefaultIsOnePerCpuUpToTheQuotaRoundedUp) {
  EXPECT_EQ(plan_cpu_budget(with(0), 8, std::nullopt).workers, 8);
  EXPECT_EQ(plan_cpu_budget(with(0), 128, quota(16)).workers, 16);
  EXPECT_EQ(plan_cpu_budget(with(0), 4, quota(1.5)).workers, 2);
  EXPECT_EQ(plan_cpu_budget(with(0), 4, quota(0.2)).workers, 1);
  EXPECT_EQ(plan_cpu_budget(with(0), 8, quota(200)).workers, 8);
  EXPECT_EQ(plan_cpu_budget(with(0), 128, quota(16.000000000001)).workers, 16);
  for (const auto& b :
       {plan_cpu_budget(with(0), 128, quota(16)), plan_cpu_budget(with(0), 4, quota(1.5))}) {
    EXPECT_FALSE(b.workers_set);
    EXPECT_FALSE(b.oversubscribed);
  }
}

TEST(CpuBudget, ExplicitWorkersWinAndMayOversubscribe) {
  const CpuBudget over_quota = plan_cpu_budget(with(32), 128, quota(16));
  EXPECT_EQ(over_quota.workers, 32);
  EXPECT_TRUE(over_quota.workers_set);
  EXPECT_TRUE(over_quota.oversubscribed);
  EXPECT_TRUE(plan_cpu_budget(with(3), 2, std::nullopt).oversubscribed);
  EXPECT_TRUE(plan_cpu_budget(with(3), 4, quota(2)).oversubscribed);
  EXPECT_FALSE(plan_cpu_budget(with(3), 4, quota(2.5)).oversubscribed);  // 3 CPUs' slices
  EXPECT_FALSE(plan_cpu_budget(with(2), 2, std::nullopt).oversubscribed);
  EXPECT_FALSE(plan_cpu_budget(with(1), 128, quota(16)).oversubscribed);
}

TEST(CpuBudget, TheSettingForcesIt) {
  EXPECT_TRUE(plan_cpu_budget(with(1, Oversubscription::yes), 8, std::nullopt).oversubscribed);
  EXPECT_FALSE(plan_cpu_budget(with(64, Oversubscription::no), 8, quota(2)).oversubscribed);
}

// Said once a task-aware layer appears: more workers than CPUs make
// TAMPI's ticket-order spin locks crawl (docs/porting-ompss.md, section 6).
TEST(CpuBudget, SeatSharingNoteOnlyWhenWorkersOutnumberCpus) {
  const std::string n = plan_cpu_budget(with(4), 1, std::nullopt).seat_sharing_note();
  for (const char* part :
       {"4 workers share 1 runnable CPU(s)", "JOULE_WORKERS=1", "--bind-to none"})
    EXPECT_NE(n.find(part), std::string::npos) << part << " not in: " << n;
  EXPECT_NE(plan_cpu_budget(with(3), 4, quota(2)).seat_sharing_note(), "");
  EXPECT_EQ(plan_cpu_budget(with(2), 2, std::nullopt).seat_sharing_note(), "");
  EXPECT_EQ(plan_cpu_budget(with(0), 8, quota(2)).seat_sharing_note(), "");
}

TEST(CpuBudget, DescribeNamesTheNumbersAndTheirSources) {
  const std::string d = plan_cpu_budget(with(32), 128, quota(16)).describe();
  for (const char* part :
       {"128 CPU(s)", "quota 16 (cpu.max)", "32 worker(s) (JOULE_WORKERS)", ", oversubscribed"})
    EXPECT_NE(d.find(part), std::string::npos) << part << " not in: " << d;
  const std::string forced = plan_cpu_budget(with(0, Oversubscription::no), 2, {}).describe();
  EXPECT_NE(forced.find("no CPU quota; 2 worker(s) (one per CPU)"), std::string::npos) << forced;
  const std::string quota_bound = plan_cpu_budget(with(0), 128, quota(16)).describe();
  EXPECT_NE(quota_bound.find("16 worker(s) (the CPU quota rounded up), not oversubscribed"),
            std::string::npos)
      << quota_bound;
  EXPECT_NE(forced.find("not oversubscribed (JOULE_OVERSUBSCRIBED=no)"), std::string::npos)
      << forced;
}

// ---- the runtime on a fake cgroup tree --------------------------------------

class QuotaRuntime : public joule_test::config_fixture {
 protected:
  int mask() const { return int(joule_test::allowed_cpus().size()); }
  std::string root() const { return fake_.root(); }
  void limit(const char* cpu_max) const {
    fake_.v2("/job");
    fake_.cpu_max("/job", cpu_max);
  }
  FakeCgroup fake_;
};

TEST_F(QuotaRuntime, DefaultWorkersFollowTheQuota) {
  limit("100000 100000\n");  // one CPU
  joule::runtime rt({{"JOULE_CGROUP_ROOT", root()}});
  Runtime& r = Runtime::get();
  EXPECT_EQ(r.workers().owned(), 1);
  EXPECT_FALSE(r.oversubscribed());
  ASSERT_TRUE(r.cpu_budget().quota);
  EXPECT_DOUBLE_EQ(r.cpu_budget().quota->cpus, 1);
  EXPECT_EQ(r.cpu_budget().mask_cpus, mask());
  EXPECT_EQ(r.workers().worker(0)->cpu(),
            joule_test::allowed_cpus().front());  // the first of the mask
  EXPECT_TRUE(joule_test::run_a_few_tasks());
}

TEST_F(QuotaRuntime, FractionalQuotaRoundsUp) {
  limit("150000 100000\n");
  joule::runtime rt({{"JOULE_CGROUP_ROOT", root()}});
  EXPECT_EQ(Runtime::get().workers().owned(), std::min(mask(), 2));
  EXPECT_FALSE(Runtime::get().oversubscribed());
}

TEST_F(QuotaRuntime, NoQuotaMeansOnePerCpu) {
  limit("max 100000\n");
  joule::runtime rt({{"JOULE_CGROUP_ROOT", root()}});
  EXPECT_EQ(Runtime::get().workers().owned(), mask());
  EXPECT_FALSE(Runtime::get().cpu_budget().quota);
  EXPECT_FALSE(Runtime::get().oversubscribed());
}

TEST_F(QuotaRuntime, ExplicitWorkersAboveTheQuotaAreOversubscribed) {
  limit("100000 100000\n");
  joule::runtime rt({{"JOULE_CGROUP_ROOT", root()}, {"JOULE_WORKERS", "2"}});
  EXPECT_EQ(Runtime::get().workers().owned(), 2);
  EXPECT_TRUE(Runtime::get().oversubscribed());
  EXPECT_TRUE(joule_test::run_a_few_tasks());
}

TEST_F(QuotaRuntime, MoreWorkersThanCpusAreOversubscribed) {
  joule::runtime rt({{"JOULE_CGROUP_ROOT", root()}, {"JOULE_WORKERS", std::to_string(mask() + 1)}});
  EXPECT_TRUE(Runtime::get().oversubscribed());
}

TEST_F(QuotaRuntime, SettingForcesEitherWay) {
  {
    joule::runtime rt({{"JOULE_CGROUP_ROOT", root()}, {"JOULE_OVERSUBSCRIBED", "yes"}});
    EXPECT_TRUE(Runtime::get().oversubscribed());
  }
  joule::runtime rt({{"JOULE_CGROUP_ROOT", root()},
                     {"JOULE_WORKERS", std::to_string(mask() + 1)},
                     {"JOULE_OVERSUBSCRIBED", "no"}});
  EXPECT_FALSE(Runtime::get().oversubscribed());
}

TEST_F(QuotaRuntime, DumpReportsQuotaAndExplicitWorkers) {
  limit("100000 100000\n");
  testing::internal::CaptureStderr();
  {
    joule::runtime rt(
        {{"JOULE_CGROUP_ROOT", root()}, {"JOULE_WORKERS", "3"}, {"JOULE_CONFIG_DUMP", "1"}});
  }
  const std::string out = testing::internal::GetCapturedStderr();
  for (const std::string part :
       {std::string("CPU quota 1 (") + root() + "/sys/fs/cgroup/job/cpu.max)",
        std::string("3 worker(s) (JOULE_WORKERS), oversubscribed"),
        std::string("JOULE_OVERSUBSCRIBED=auto"), "JOULE_CGROUP_ROOT=" + root()})
    EXPECT_NE(out.find(part), std::string::npos) << part << " not in:\n" << out;
}

}  // namespace
}  // namespace joule::engine
