// The cgroup CPU quota (core/cpu_quota.hpp) on fake trees: cgroup v2
// nesting, "max", cgroup v1, mounts of a subtree, missing and garbled files.
#include <gtest/gtest.h>

#include <string>

#include "cpu_quota.hpp"
#include "fake_cgroup.hpp"
#include "log.hpp"

namespace joule::core {
namespace {

using joule_test::FakeCgroup;

// A cgroup v1 machine (or a hybrid one: `with_v2`) whose cpu,cpuacct
// hierarchy is mounted at /sys/fs/cgroup/cpu,cpuacct with `mount_root` as
// its root (not "/" when a container sees only its own subtree).
void v1(const FakeCgroup& f, const std::string& group, const std::string& mount_root = "/",
        bool with_v2 = false) {
  f.write("/proc/self/cgroup", "12:pids:/\n4:cpu,cpuacct:" + group + "\n3:memory:/\n" +
                                   std::string(with_v2 ? "0::/\n" : ""));
  f.write("/proc/self/mountinfo",
          "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
          "31 22 0:28 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755\n"
          "35 31 0:32 " +
              mount_root +
              " /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct\n"
              "36 31 0:33 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n" +
              std::string(with_v2 ? "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
                                  : ""));
}

void cfs(const FakeCgroup& f, const std::string& dir, const std::string& quota,
         const std::string& period = "100000") {
  f.write("/sys/fs/cgroup/cpu,cpuacct" + dir + "/cpu.cfs_quota_us", quota + "\n");
  f.write("/sys/fs/cgroup/cpu,cpuacct" + dir + "/cpu.cfs_period_us", period + "\n");
}

TEST(CpuQuota, V2TighterParentWins) {
  FakeCgroup f;
  f.v2("/job/step");
  f.cpu_max("/job/step", "400000 100000\n");
  f.cpu_max("/job", "150000 100000\n");
  f.cpu_max("/", "max 100000\n");
  const auto q = read_cpu_quota(f.root());
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->cpus, 1.5);
  EXPECT_EQ(q->file, f.root() + "/sys/fs/cgroup/job/cpu.max");
}

TEST(CpuQuota, V2OwnGroupTighterThanParent) {
  FakeCgroup f;
  f.v2("/job/step");
  f.cpu_max("/job/step", "1600000 100000\n");
  f.cpu_max("/job", "3200000 100000\n");
  const auto q = read_cpu_quota(f.root());
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->cpus, 16);
  EXPECT_EQ(q->file, f.root() + "/sys/fs/cgroup/job/step/cpu.max");
}

TEST(CpuQuota, V2MaxOrNoFileMeansNoLimit) {
  FakeCgroup f;
  f.v2("/a/b");
  f.cpu_max("/a/b", "max 100000\n");  // /a has no cpu.max: the controller is off there
  EXPECT_FALSE(read_cpu_quota(f.root()));
  FakeCgroup root_group;
  root_group.v2("/");
  EXPECT_FALSE(read_cpu_quota(root_group.root()));
}

TEST(CpuQuota, V1CfsQuotaOverPeriod) {
  FakeCgroup f;
  v1(f, "/job");
  cfs(f, "/job", "250000");
  cfs(f, "", "-1");
  const auto q = read_cpu_quota(f.root());
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->cpus, 2.5);
  EXPECT_EQ(q->file, f.root() + "/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_quota_us");
}

TEST(CpuQuota, V1MinusOneMeansNoLimit) {
  FakeCgroup f;
  v1(f, "/job");
  cfs(f, "/job", "-1");
  EXPECT_FALSE(read_cpu_quota(f.root()));
}

// A container without a cgroup namespace: /proc/self/cgroup names the group
// from the host's root, and the mount shows only that group's directory.
TEST(CpuQuota, V1MountOfASubtreeIsReadAtTheMountPoint) {
  FakeCgroup f;
  v1(f, "/docker/abc", "/docker/abc");
  cfs(f, "", "50000");
  const auto q = read_cpu_quota(f.root());
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->cpus, 0.5);
}

TEST(CpuQuota, HybridTakesTheTighterOfV1AndV2) {
  FakeCgroup f;
  v1(f, "/job", "/", true);
  cfs(f, "/job", "300000");
  f.write("/sys/fs/cgroup/unified/cpu.max", "200000 100000\n");
  const auto q = read_cpu_quota(f.root());
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->cpus, 2);
}

TEST(CpuQuota, EscapedMountPointIsUnescaped) {
  FakeCgroup f;
  f.write("/proc/self/cgroup", "0::/g\n");
  f.write("/proc/self/mountinfo", "30 22 0:26 / /cg\\040roups rw - cgroup2 cgroup2 rw\n");
  f.write("/cg roups/g/cpu.max", "300000 100000\n");
  const auto q = read_cpu_quota(f.root());
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->cpus, 3);
}

TEST(CpuQuota, MissingProcFilesMeanNoLimit) {
  FakeCgroup f;
  EXPECT_FALSE(read_cpu_quota(f.root()));
  f.write("/proc/self/cgroup", "0::/\n");  // no mountinfo
  EXPECT_FALSE(read_cpu_quota(f.root()));
  FakeCgroup unmounted;  // the process's group, but no cgroup2 mount
  unmounted.write("/proc/self/cgroup", "0::/job\n");
  unmounted.write("/proc/self/mountinfo", "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n");
  EXPECT_FALSE(read_cpu_quota(unmounted.root()));
}

TEST(CpuQuota, GarbledFilesAreSkippedWithAWarningNamingThem) {
  reset_warn_once();
  FakeCgroup f;
  f.v2("/job/step");
  f.cpu_max("/job/step", "banana\n");
  f.cpu_max("/job", "0 100000\n");
  f.cpu_max("/", "200000 100000\n");
  testing::internal::CaptureStderr();
  const auto q = read_cpu_quota(f.root());
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->cpus, 2);  // the readable ancestor's
  EXPECT_NE(err.find(f.root() + "/sys/fs/cgroup/job/step/cpu.max"), std::string::npos) << err;
  EXPECT_NE(err.find(f.root() + "/sys/fs/cgroup/job/cpu.max"), std::string::npos) << err;
}

TEST(CpuQuota, V1GarbledQuotaOrMissingPeriodIsIgnored) {
  reset_warn_once();
  FakeCgroup f;
  v1(f, "/job");
  f.write("/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_quota_us", "lots\n");
  f.write("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "100000\n");  // its period is missing
  testing::internal::CaptureStderr();
  EXPECT_FALSE(read_cpu_quota(f.root()));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("job/cpu.cfs_quota_us"), std::string::npos) << err;
  EXPECT_NE(err.find("cpu,cpuacct/cpu.cfs_period_us"), std::string::npos) << err;
}

TEST(CpuQuota, GarbledProcFilesDoNotCrash) {
  FakeCgroup f;
  f.write("/proc/self/cgroup", "::::\n0\n\n:cpu\nnot a line at all\n0::\n");
  f.write("/proc/self/mountinfo", "- - - -\n1 2 3\n\\\\\\ - cgroup2\n30 22 0:26 / / - cgroup2\n");
  EXPECT_FALSE(read_cpu_quota(f.root()));
}

}  // namespace
}  // namespace joule::core
