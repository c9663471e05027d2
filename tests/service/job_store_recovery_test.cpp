// The job database at jouled's start: a schema-1 file (records keyed by job
// and start, replaced on a repeat) becomes schema 2 with its records kept,
// and a damaged file is moved aside with a timestamp for a fresh one
// (open_or_recover), while other failures are left for the admin.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "job_store.hpp"
#include "temp_dir.hpp"

namespace joule::service {
namespace {

class JobStoreRecovery : public ::testing::Test {
 protected:
  void sql(const std::string& text) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* msg = nullptr;
    EXPECT_EQ(sqlite3_exec(db, text.c_str(), nullptr, nullptr, &msg), SQLITE_OK)
        << (msg ? msg : "");
    sqlite3_free(msg);
    sqlite3_close(db);
  }
  std::vector<std::string> aside() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_.path()))
      if (e.path().filename().string().rfind("jobs.db.corrupt-", 0) == 0)
        out.push_back(e.path().filename().string());
    return out;
  }
  joule_test::TempDir dir_;
  std::string path_ = dir_.file("jobs.db");
};

TEST_F(JobStoreRecovery, SchemaOneIsMigratedWithItsRecords) {
  sql("CREATE TABLE jobs (job TEXT NOT NULL, start_unix_s INTEGER NOT NULL,"
      " job_source TEXT NOT NULL, uid INTEGER NOT NULL, user TEXT NOT NULL, cpus TEXT NOT NULL,"
      " duration_s REAL NOT NULL, energy_j REAL NOT NULL, energy_scope TEXT NOT NULL,"
      " avg_khz REAL NOT NULL, pstate_s TEXT NOT NULL, PRIMARY KEY (job, start_unix_s));"
      "CREATE INDEX jobs_by_start ON jobs (start_unix_s);"
      "INSERT INTO jobs VALUES ('7', 100, 'client', 1000, 'alice', '0-1', 1, 2, 'package', 3,"
      " '1200000:1');"
      "PRAGMA user_version = 1;");
  std::string why;
  auto s = JobStore::open(path_, &why);
  ASSERT_TRUE(s) << why;
  JobRecord again;
  again.job = "7";
  again.start_unix_s = 100;
  again.uid = 1001;
  again.user = "bob";
  ASSERT_TRUE(s->put(again, &why)) << why << ": the old key is gone";
  const auto got = s->query({}, &why);
  ASSERT_EQ(got.size(), 2u) << why;
  EXPECT_EQ(got[1].user, "alice");
  EXPECT_EQ(got[1].cpus, (std::vector<int>{0, 1}));
}

TEST_F(JobStoreRecovery, GarbageIsMovedAsideAndAFreshOneMade) {
  std::ofstream(path_) << std::string(4096, 'x');
  std::ofstream(path_ + "-wal") << "stale";
  std::string moved, why;
  auto s = open_or_recover(path_, &moved, &why);
  ASSERT_TRUE(s) << why;
  EXPECT_NE(why.find("not a joule job database"), std::string::npos) << why;
  ASSERT_EQ(aside(), std::vector<std::string>{std::filesystem::path(moved).filename().string()});
  EXPECT_EQ(std::filesystem::file_size(moved), 4096u);
  std::ifstream wal(path_ + "-wal");
  std::string first;
  wal >> first;
  EXPECT_NE(first, "stale") << "the old -wal is not replayed into the fresh database";
  EXPECT_TRUE(s->put(JobRecord{}, &why)) << why;
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// A real database whose table pages were overwritten opens, but fails
// PRAGMA quick_check.
TEST_F(JobStoreRecovery, DamagedPagesFailTheCheck) {
  {
    std::string why;
    auto s = JobStore::open(path_, &why);
    ASSERT_TRUE(s) << why;
    JobRecord r;
    r.user = std::string(2000, 'u');
    for (int i = 0; i < 50; ++i) {
      r.job = std::to_string(i);
      ASSERT_TRUE(s->put(r, &why)) << why;
    }
  }
  sql("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;");
  const auto size = std::filesystem::file_size(path_);
  ASSERT_GT(size, 8 * 4096u);
  {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4 * 4096);
    const std::string junk(3 * 4096, '\xa5');
    f.write(junk.data(), std::streamsize(junk.size()));
  }
  std::string why;
  auto failure = JobStore::OpenFailure::other;
  EXPECT_FALSE(JobStore::open(path_, &why, &failure));
  EXPECT_EQ(failure, JobStore::OpenFailure::damaged) << why;
  std::string moved;
  EXPECT_TRUE(open_or_recover(path_, &moved, &why)) << why;
  EXPECT_EQ(aside().size(), 1u);
}

// Not damage: a newer schema stays where it is, and jouled runs without records.
TEST_F(JobStoreRecovery, NewerSchemaIsNotMovedAside) {
  sql("PRAGMA user_version = 9");
  std::string moved, why;
  EXPECT_FALSE(open_or_recover(path_, &moved, &why));
  EXPECT_NE(why.find("newer jouled"), std::string::npos) << why;
  EXPECT_EQ(moved, "");
  EXPECT_TRUE(aside().empty());
}

}  // namespace
}  // namespace joule::service
