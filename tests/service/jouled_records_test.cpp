// jouled's job records against other users (docs/service.md, "Limits"): a
// record belongs to its job id and uid, a client's `job=` never reaches
// into another user's record or a Slurm job's, and a corrupt job database
// is moved aside rather than turning the records off.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "job_store.hpp"

#include "jouled_fixture.hpp"

namespace joule::test {
namespace {

class JouledRecords : public JouledTest {
 protected:
  void SetUp() override {
    JouledTest::SetUp();
    if (IsSkipped()) return;
    write_access(std::string("[[allow]]\nusers = [\"") + kUser + "\", \"" + kOther +
                 "\"]\ncontrols = [\"frequency\", \"energy\"]\n");
  }
  // Root's answer to one request (its final line).
  std::string as_root(const std::string& request) {
    auto c = client({}, {request}, false, "root");
    std::string line = c.next();
    c.wait();
    return line;
  }
  std::vector<service::JobRecord> records(const std::string& job) {
    std::string why;
    auto store = service::JobStore::open_read_only(state_ + "/jobs.db", &why);
    EXPECT_TRUE(store) << why;
    if (!store) return {};
    service::JobQuery q;
    q.job = job;
    auto out = store->query(q, &why);
    EXPECT_TRUE(why.empty()) << why;
    return out;
  }
  static const service::JobRecord* of_user(const std::vector<service::JobRecord>& recs,
                                           const std::string& user) {
    for (const auto& r : recs)
      if (r.user == user) return &r;
    return nullptr;
  }
};

// The case: user A's finished job 4242, then user B says job=4242.
// A's record stays as written; B's is a record of its own.
TEST_F(JouledRecords, AnotherUsersJobIdNeitherReplacesNorMergesARecord) {
  build(Layout::singles);
  ASSERT_TRUE(start()) << log();
  auto a = client({0}, {"hello version=1 job=4242", "set cpu=0 khz=1200000", "release"}, false);
  EXPECT_NE(a.next().find("job=4242 job_source=client"), std::string::npos);
  EXPECT_NE(a.next().find("ok domain=0"), std::string::npos);
  EXPECT_NE(a.next().find("ok energy_j="), std::string::npos);
  a.wait();
  auto b = client({1}, {"hello version=1 job=4242", "release"}, false, kOther);
  EXPECT_NE(b.next().find("job=4242 job_source=client"), std::string::npos);
  b.next();
  b.wait();
  EXPECT_EQ(as_root("jobs job=4242"), "ok count=2") << log();
  const auto recs = records("4242");
  ASSERT_EQ(recs.size(), 2u);
  const auto* ra = of_user(recs, kUser);
  const auto* rb = of_user(recs, kOther);
  ASSERT_TRUE(ra && rb);
  EXPECT_EQ(ra->cpus, std::vector<int>{0});
  ASSERT_FALSE(ra->pstate_s.empty());
  EXPECT_EQ(ra->pstate_s.front().first, 1200000u) << "A's frequency record is intact";
  EXPECT_EQ(rb->cpus, std::vector<int>{1});
  EXPECT_NE(ra->uid, rb->uid);
  EXPECT_TRUE(restored()) << log();
}

// User B runs inside Slurm job 4242 (its cgroup says so); user A claims the
// same id. A's lease is A's own job, recorded under A; B's Slurm job keeps
// its CPUs and record, and root's job-end still ends it.
TEST_F(JouledRecords, ClaimingALiveSlurmJobsIdGetsARecordOfYourOwn) {
  build(Layout::singles);
  ASSERT_TRUE(start({"--proc-root", root_ + "/proc"})) << log();
  ClientProc b(socket_, kOther, {1}, {"hello version=1", "set cpu=1 khz=1200000"}, true, true);
  tree_->write("/proc/" + std::to_string(b.pid()) + "/cgroup",
               "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n");
  b.open_gate();
  EXPECT_NE(b.next().find("job=4242 job_source=cgroup"), std::string::npos);
  EXPECT_NE(b.next().find("ok domain=1"), std::string::npos);
  ASSERT_EQ(b.next(), "ready");
  auto a = client({0}, {"hello version=1 job=4242", "set cpu=0 khz=1200000", "release"}, false);
  EXPECT_NE(a.next().find("job=4242 job_source=client"), std::string::npos);
  a.next();
  a.next();
  a.wait();
  auto recs = records("4242");
  ASSERT_EQ(recs.size(), 1u) << "A's release ends A's job, not B's";
  EXPECT_EQ(recs[0].user, kUser);
  EXPECT_EQ(recs[0].job_source, "client");
  EXPECT_EQ(recs[0].cpus, std::vector<int>{0});
  EXPECT_EQ(file(1, "scaling_setspeed"), "1200000") << "B's CPU is still B's";
  EXPECT_EQ(as_root("job-end job=4242"), "ok leases=1");
  recs = records("4242");
  ASSERT_EQ(recs.size(), 2u);
  const auto* rb = of_user(recs, kOther);
  ASSERT_TRUE(rb);
  EXPECT_EQ(rb->job_source, "cgroup");
  EXPECT_EQ(rb->cpus, std::vector<int>{1}) << "A's CPU never joined B's Slurm job";
  EXPECT_TRUE(restored()) << log();
}

// A job database that is not one (or fails SQLite's check) is moved aside
// with a timestamp, one audit line says so, and the records go on in a
// fresh one.
TEST_F(JouledRecords, CorruptDatabaseIsMovedAsideAndRecordsGoOn) {
  build(Layout::singles);
  ASSERT_TRUE(start()) << log();
  ASSERT_EQ(stop(), 0);
  const std::string garbage(8192, 'x');
  std::ofstream(state_ + "/jobs.db", std::ios::binary | std::ios::trunc) << garbage;
  ASSERT_TRUE(start()) << log();
  auto a = client({0}, {"hello version=1 job=j7", "release"}, false);
  a.next();
  a.next();
  a.wait();
  EXPECT_EQ(as_root("jobs job=j7"), "ok count=1") << log();
  std::vector<std::string> aside;
  for (const auto& e : std::filesystem::directory_iterator(state_))
    if (e.path().filename().string().rfind("jobs.db.corrupt-", 0) == 0)
      aside.push_back(e.path().string());
  ASSERT_EQ(aside.size(), 1u) << log();
  EXPECT_EQ(slurp_file(aside[0]), garbage) << "moved, not rewritten";
  const std::string audit = slurp_file(state_ + "/audit.log");
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = audit.find("jobs.db.corrupt-", at)) != std::string::npos; ++at)
    ++lines;
  EXPECT_EQ(lines, 1u) << audit;
}

}  // namespace
}  // namespace joule::test
