// `joule-ctl jobs`: with --db it prints the records of a store this test
// writes, filtered and newest first; without a service it says how to get
// one and exits 1.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "job_store.hpp"
#include "temp_dir.hpp"

namespace joule::service {
namespace {

struct CtlRun {
  int status = -1;
  std::string out;  // stdout and stderr together
};

CtlRun run_ctl(const std::string& args) {
  CtlRun r;
  const std::string cmd = std::string(JOULE_CTL_PATH) + " jobs " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

JobRecord record(const std::string& job, std::int64_t start, const std::string& user,
                 double joules) {
  JobRecord r;
  r.job = job;
  r.job_source = "client";
  r.uid = user == "root" ? 0 : 1000;
  r.user = user;
  r.cpus = {0, 1};
  r.start_unix_s = start;
  r.duration_s = 2;
  r.energy_j = joules;
  r.energy_scope = "package";
  return r;
}

class CtlJobs : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    auto s = JobStore::open(db_, &why);
    ASSERT_TRUE(s) << why;
    ASSERT_TRUE(s->put(record("first", 100, "root", 11.5), &why)) << why;
    ASSERT_TRUE(s->put(record("second", 200, "alice", 22.25), &why)) << why;
  }
  joule_test::TempDir dir_;
  std::string db_ = dir_.file("jobs.db");
};

TEST_F(CtlJobs, DbPrintsOneLinePerJobNewestFirst) {
  const CtlRun r = run_ctl("--db " + db_);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, format_record(record("second", 200, "alice", 22.25)) + "\n" +
                       format_record(record("first", 100, "root", 11.5)) + "\n");
  EXPECT_NE(r.out.find("job=second"), std::string::npos);
  EXPECT_NE(r.out.find("energy_j=22.250"), std::string::npos);
}

TEST_F(CtlJobs, DbFiltersAndLimits) {
  CtlRun r = run_ctl("--db " + db_ + " --user root");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, format_record(record("first", 100, "root", 11.5)) + "\n");
  r = run_ctl("--db " + db_ + " --job second");
  EXPECT_EQ(r.out.rfind("job=second ", 0), 0u) << r.out;
  r = run_ctl("--db " + db_ + " --limit 1");
  EXPECT_EQ(r.out.rfind("job=second ", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find("job=first"), std::string::npos) << r.out;
  r = run_ctl("--db " + db_ + " --limit 0");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--limit"), std::string::npos) << r.out;
}

TEST_F(CtlJobs, MissingDbIsAClearError) {
  const CtlRun r = run_ctl("--db " + dir_.file("absent.db"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("absent.db: cannot open"), std::string::npos) << r.out;
}

TEST_F(CtlJobs, NoServiceIsAClearError) {
  const std::string sock = dir_.file("jouled.sock");
  const CtlRun r = run_ctl("--socket " + sock);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("cannot reach jouled at " + sock + ": "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(start it, or use --db)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace joule::service
