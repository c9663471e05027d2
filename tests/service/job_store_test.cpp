// The job records in SQLite: what is put comes back, records are only ever
// added (the same job and start is a second record), the filters, limit
// and order hold, the file is private, and a database this jouled cannot
// read is refused with a message.
#include "job_store.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <fstream>

#include "temp_dir.hpp"

namespace joule::service {
namespace {

JobRecord record(const std::string& job, std::int64_t start, std::uint32_t uid,
                 const std::string& user) {
  JobRecord r;
  r.job = job;
  r.job_source = "client";
  r.uid = uid;
  r.user = user;
  r.cpus = {3, 0, 1, 2, 8};
  r.start_unix_s = start;
  r.duration_s = 12.25;
  r.energy_j = 1234.5678;
  r.energy_scope = "package";
  r.avg_khz = 1800000;
  r.pstate_s = {{1200000, 0.1}, {2400000, 47.9}};
  return r;
}

class JobStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<JobStore> open() {
    std::string why;
    auto s = JobStore::open(path_, &why);
    EXPECT_TRUE(s) << why;
    return s;
  }
  std::vector<JobRecord> query(const JobStore& s, const JobQuery& q) {
    std::string why;
    auto out = s.query(q, &why);
    EXPECT_EQ(why, "");
    return out;
  }
  joule_test::TempDir dir_;
  std::string path_ = dir_.file("jobs.db");
};

TEST_F(JobStoreTest, PutThenQueryRoundTrips) {
  auto s = open();
  std::string why;
  ASSERT_TRUE(s->put(record("slurm-77", 1700000000, 1000, "alice"), &why)) << why;
  const auto got = query(*s, {});
  ASSERT_EQ(got.size(), 1u);
  const JobRecord& r = got[0];
  EXPECT_EQ(r.job, "slurm-77");
  EXPECT_EQ(r.job_source, "client");
  EXPECT_EQ(r.uid, 1000u);
  EXPECT_EQ(r.user, "alice");
  EXPECT_EQ(r.cpus, (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(r.start_unix_s, 1700000000);
  EXPECT_EQ(r.duration_s, 12.25);
  EXPECT_EQ(r.energy_j, 1234.5678);
  EXPECT_EQ(r.energy_scope, "package");
  EXPECT_EQ(r.avg_khz, 1800000);
  EXPECT_EQ(r.pstate_s,
            (std::vector<std::pair<std::uint32_t, double>>{{1200000, 0.1}, {2400000, 47.9}}));
  EXPECT_EQ(format_record(r),
            "job=slurm-77 user=alice uid=1000 cpus=0-3,8 start=1700000000 duration_s=12.250 "
            "energy_j=1234.568 energy_scope=package avg_khz=1800000 "
            "pstate_s=1200000:0.100,2400000:47.900");
}

TEST_F(JobStoreTest, FormatEscapesAndMarksEmptyLists) {
  JobRecord r;
  r.job = "a b";
  r.energy_scope = "none";
  EXPECT_EQ(format_record(r),
            "job=a%20b user=- uid=0 cpus=- start=0 duration_s=0.000 energy_j=0.000 "
            "energy_scope=none avg_khz=0 pstate_s=-");
}

// Two users' jobs may share an id and a start second: neither write touches
// the other's record, and SQL cannot change or delete one either.
TEST_F(JobStoreTest, RecordsAreAppendOnly) {
  auto s = open();
  auto a = record("4242", 100, 1000, "alice");
  ASSERT_TRUE(s->put(a, nullptr));
  auto b = record("4242", 100, 1001, "bob");
  b.energy_j = 99;
  ASSERT_TRUE(s->put(b, nullptr));
  const auto got = query(*s, {});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].user, "bob") << "the newer of equal starts first";
  EXPECT_EQ(got[1].user, "alice");
  EXPECT_EQ(got[1].energy_j, a.energy_j);
  s.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  for (const char* sql : {"UPDATE jobs SET energy_j = 0", "DELETE FROM jobs"})
    EXPECT_NE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  sqlite3_close(db);
  EXPECT_EQ(query(*open(), {}).size(), 2u);
}

TEST_F(JobStoreTest, FiltersLimitAndNewestFirst) {
  {
    auto s = open();
    for (int i = 0; i < 20; ++i) {
      const bool alice = i % 2 == 0;
      ASSERT_TRUE(s->put(record("job-" + std::to_string(i), 1000 + (i * 7) % 20,
                                alice ? 1000 : 1001, alice ? "alice" : "bob"),
                         nullptr));
    }
  }
  auto s = open();  // reopened: the records are on disk
  auto all = query(*s, {});
  ASSERT_EQ(all.size(), 20u);
  for (std::size_t i = 1; i < all.size(); ++i)
    EXPECT_GT(all[i - 1].start_unix_s, all[i].start_unix_s);
  JobQuery q;
  q.uid = 1001;
  auto bob = query(*s, q);
  ASSERT_EQ(bob.size(), 10u);
  for (const auto& r : bob) EXPECT_EQ(r.user, "bob");
  q = {};
  q.user = "alice";
  q.limit = 3;
  auto alice = query(*s, q);
  ASSERT_EQ(alice.size(), 3u);
  EXPECT_EQ(alice[0].start_unix_s,
            all[0].user == "alice" ? all[0].start_unix_s : all[1].start_unix_s);
  q = {};
  q.job = "job-7";
  auto one = query(*s, q);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].start_unix_s, 1000 + 49 % 20);
  q.job = "job-77";
  EXPECT_TRUE(query(*s, q).empty());
  q = {};
  q.limit = 1;
  EXPECT_EQ(query(*s, q).size(), 1u);
  for (int bad : {0, -1, kMaxLimit + 1}) {
    q.limit = bad;
    std::string why;
    EXPECT_TRUE(s->query(q, &why).empty());
    EXPECT_NE(why.find("outside 1..10000"), std::string::npos) << why;
  }
}

TEST_F(JobStoreTest, FileIsPrivate) {
  auto s = open();
  ASSERT_TRUE(s->put(record("j", 1, 0, "root"), nullptr));
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(JobStoreTest, ReaderSeesRecordsWhileWriterIsOpen) {
  auto w = open();
  ASSERT_TRUE(w->put(record("j", 1, 0, "root"), nullptr));
  std::string why;
  auto r = JobStore::open_read_only(path_, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(query(*r, {}).size(), 1u);
  ASSERT_TRUE(w->put(record("k", 2, 0, "root"), nullptr));
  EXPECT_EQ(query(*r, {}).size(), 2u);
  EXPECT_FALSE(r->put(record("x", 3, 0, "root"), &why));
  EXPECT_NE(why.find("readonly"), std::string::npos) << why;
}

TEST_F(JobStoreTest, ReadOnlyOfMissingFileIsAnErrorAndCreatesNothing) {
  std::string why;
  EXPECT_FALSE(JobStore::open_read_only(path_, &why));
  EXPECT_NE(why.find(path_ + ": cannot open"), std::string::npos) << why;
  struct stat st {};
  EXPECT_NE(::stat(path_.c_str(), &st), 0);
}

TEST_F(JobStoreTest, NewerSchemaIsRefused) {
  open().reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 3", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  for (bool ro : {false, true}) {
    std::string why;
    EXPECT_FALSE(ro ? JobStore::open_read_only(path_, &why) : JobStore::open(path_, &why));
    EXPECT_NE(why.find("written by a newer jouled (schema 3, this one reads up to 2)"),
              std::string::npos)
        << why;
  }
}

TEST_F(JobStoreTest, GarbageFileIsRefused) {
  std::ofstream(path_) << std::string(4096, 'x');
  std::string why;
  EXPECT_FALSE(JobStore::open(path_, &why));
  EXPECT_NE(why.find(path_ + ": not a joule job database"), std::string::npos) << why;
  EXPECT_FALSE(JobStore::open_read_only(path_, &why));
  EXPECT_NE(why.find("not a joule job database"), std::string::npos) << why;
}

}  // namespace
}  // namespace joule::service
