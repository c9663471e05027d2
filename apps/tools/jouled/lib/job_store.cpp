// JobStore on SQLite's C API (https://sqlite.org/cintro.html). Every value
// goes through a bound parameter; the only SQL text is the constants below.
// WAL (https://sqlite.org/wal.html) lets `joule-ctl jobs --db` read while
// jouled writes, and busy_timeout covers the moments WAL still locks.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "job_record_text.hpp"
#include "job_store.hpp"

namespace joule::service {
namespace {

// PRAGMA user_version (https://sqlite.org/pragma.html#pragma_user_version).
// Schema 1 keyed records by (job, start) and replaced on a repeat, so that
// one user's `job=` could overwrite another's record; schema 2 only appends
// (no key but SQLite's rowid; triggers refuse UPDATE and DELETE).
constexpr int kSchemaVersion = 2;
constexpr const char* kCreate =
    "CREATE TABLE IF NOT EXISTS jobs ("
    " job TEXT NOT NULL, start_unix_s INTEGER NOT NULL, job_source TEXT NOT NULL,"
    " uid INTEGER NOT NULL, user TEXT NOT NULL, cpus TEXT NOT NULL, duration_s REAL NOT NULL,"
    " energy_j REAL NOT NULL, energy_scope TEXT NOT NULL, avg_khz REAL NOT NULL,"
    " pstate_s TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS jobs_by_start ON jobs (start_unix_s);"
    "CREATE TRIGGER IF NOT EXISTS jobs_no_update BEFORE UPDATE ON jobs"
    " BEGIN SELECT RAISE(ABORT, 'job records are append-only'); END;"
    "CREATE TRIGGER IF NOT EXISTS jobs_no_delete BEFORE DELETE ON jobs"
    " BEGIN SELECT RAISE(ABORT, 'job records are append-only'); END;"
    "PRAGMA user_version = 2;";
// Schema 1 to 2 in one transaction: the old table renamed, its rows copied.
constexpr const char* kMigrateFrom1 =
    "BEGIN; DROP INDEX IF EXISTS jobs_by_start; ALTER TABLE jobs RENAME TO jobs_v1;";
constexpr const char* kMigrateFrom1Copy =
    "INSERT INTO jobs SELECT job, start_unix_s, job_source, uid, user, cpus, duration_s,"
    " energy_j, energy_scope, avg_khz, pstate_s FROM jobs_v1 ORDER BY rowid;"
    "DROP TABLE jobs_v1; COMMIT;";
constexpr const char* kPut =
    "INSERT INTO jobs (job, start_unix_s, job_source, uid, user, cpus, duration_s,"
    " energy_j, energy_scope, avg_khz, pstate_s) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)";
constexpr const char* kQuery =
    "SELECT job, start_unix_s, job_source, uid, user, cpus, duration_s, energy_j, energy_scope,"
    " avg_khz, pstate_s FROM jobs WHERE (?1 IS NULL OR uid = ?1) AND (?2 IS NULL OR job = ?2)"
    " AND (?3 IS NULL OR user = ?3) ORDER BY start_unix_s DESC, job DESC, rowid DESC LIMIT ?4";
constexpr int kBusyMs = 5000;

struct DbClose {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalize {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, DbClose>;
using Stmt = std::unique_ptr<sqlite3_stmt, StmtFinalize>;

void bind_text(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
}

std::string column_text(sqlite3_stmt* s, int i) {
  const auto* p = sqlite3_column_text(s, i);
  return p ? std::string(reinterpret_cast<const char*>(p), std::size_t(sqlite3_column_bytes(s, i)))
           : std::string();
}

class SqliteJobStore final : public JobStore {
 public:
  SqliteJobStore(Db db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}

  bool put(const JobRecord& rec, std::string* why) override {
    Stmt s = prepare(kPut, why);
    if (!s) return false;
    bind_text(s.get(), 1, rec.job);
    sqlite3_bind_int64(s.get(), 2, rec.start_unix_s);
    bind_text(s.get(), 3, rec.job_source);
    sqlite3_bind_int64(s.get(), 4, rec.uid);
    bind_text(s.get(), 5, rec.user);
    bind_text(s.get(), 6, cpus_text(rec.cpus));
    sqlite3_bind_double(s.get(), 7, rec.duration_s);
    sqlite3_bind_double(s.get(), 8, rec.energy_j);
    bind_text(s.get(), 9, rec.energy_scope);
    sqlite3_bind_double(s.get(), 10, rec.avg_khz);
    bind_text(s.get(), 11, pstates_text(rec.pstate_s));
    if (sqlite3_step(s.get()) == SQLITE_DONE) return true;
    return fail(why, "cannot write the record of job " + rec.job);
  }

  std::vector<JobRecord> query(const JobQuery& q, std::string* why) const override {
    if (q.limit < 1 || q.limit > kMaxLimit) {
      if (why)
        *why = "limit " + std::to_string(q.limit) + " is outside 1.." + std::to_string(kMaxLimit);
      return {};
    }
    Stmt s = prepare(kQuery, why);
    if (!s) return {};
    if (q.uid) sqlite3_bind_int64(s.get(), 1, *q.uid);
    if (q.job) bind_text(s.get(), 2, *q.job);
    if (q.user) bind_text(s.get(), 3, *q.user);
    sqlite3_bind_int(s.get(), 4, q.limit);
    std::vector<JobRecord> out;
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      auto rec = row(s.get());
      if (!rec) {
        if (why) *why = path_ + ": a record has malformed cpus or pstate_s text";
        return {};
      }
      out.push_back(std::move(*rec));
    }
    if (rc != SQLITE_DONE) fail(why, "cannot read the job records");
    return rc == SQLITE_DONE ? out : std::vector<JobRecord>{};
  }

 private:
  static std::optional<JobRecord> row(sqlite3_stmt* s) {
    JobRecord r;
    r.job = column_text(s, 0);
    r.start_unix_s = sqlite3_column_int64(s, 1);
    r.job_source = column_text(s, 2);
    r.uid = std::uint32_t(sqlite3_column_int64(s, 3));
    r.user = column_text(s, 4);
    auto cpus = cpus_from_text(column_text(s, 5));
    r.duration_s = sqlite3_column_double(s, 6);
    r.energy_j = sqlite3_column_double(s, 7);
    r.energy_scope = column_text(s, 8);
    r.avg_khz = sqlite3_column_double(s, 9);
    auto pstates = pstates_from_text(column_text(s, 10));
    if (!cpus || !pstates) return std::nullopt;
    r.cpus = std::move(*cpus);
    r.pstate_s = std::move(*pstates);
    return r;
  }

  Stmt prepare(const char* sql, std::string* why) const {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql, -1, &s, nullptr) != SQLITE_OK) {
      fail(why, "cannot prepare a statement");
      return nullptr;
    }
    return Stmt(s);
  }

  bool fail(std::string* why, const std::string& what) const {
    if (why) *why = path_ + ": " + what + " (sqlite: " + sqlite3_errmsg(db_.get()) + ")";
    return false;
  }

  Db db_;
  std::string path_;
};

// A fresh file gets mode 0600 before SQLite opens it: the records name who
// ran what. SQLite gives its -wal and -shm files the database's mode.
bool create_private(const std::string& path, std::string* why) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    if (why) *why = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  ::close(fd);
  return true;
}

int user_version(sqlite3* db, std::string* err) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &raw, nullptr);
  Stmt s(raw);
  if (rc == SQLITE_OK) rc = sqlite3_step(s.get());
  if (rc != SQLITE_ROW) {
    *err = sqlite3_errmsg(db);
    return -1;
  }
  return sqlite3_column_int(s.get(), 0);
}

bool is_damage(sqlite3* db) {
  const int code = sqlite3_errcode(db) & 0xff;
  return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
}

bool exec(sqlite3* db, const char* sql, std::string* err) {
  char* msg = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) == SQLITE_OK) return true;
  *err = msg ? msg : sqlite3_errmsg(db);
  sqlite3_free(msg);
  return false;
}

// PRAGMA quick_check (https://sqlite.org/pragma.html#pragma_quick_check):
// the b-trees' structure without the index contents, linear in the file's
// size; "" when it says ok, else its first complaint.
std::string quick_check(sqlite3* db) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &raw, nullptr);
  Stmt s(raw);
  if (rc == SQLITE_OK) rc = sqlite3_step(s.get());
  if (rc != SQLITE_ROW) return sqlite3_errmsg(db);
  const std::string first = column_text(s.get(), 0);
  return first == "ok" ? "" : first;
}

// The table at schema 2, from nothing (0) or from schema 1.
bool set_up(sqlite3* db, int version, std::string* err) {
  if (!exec(db, "PRAGMA journal_mode = WAL", err)) return false;
  if (version != 1) return exec(db, kCreate, err);
  if (exec(db, kMigrateFrom1, err) && exec(db, kCreate, err) && exec(db, kMigrateFrom1Copy, err))
    return true;
  std::string ignored;
  exec(db, "ROLLBACK", &ignored);
  return false;
}

std::unique_ptr<JobStore> open_db(const std::string& path, bool read_only, std::string* why,
                                  JobStore::OpenFailure* failure) {
  auto fail = [&](const std::string& what, bool damaged = false) {
    if (why) *why = path + ": " + what;
    if (failure) *failure = damaged ? JobStore::OpenFailure::damaged : JobStore::OpenFailure::other;
    return nullptr;
  };
  sqlite3* raw = nullptr;
  const int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOFOLLOW, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK)
    return fail(std::string("cannot open (sqlite: ") +
                (raw ? sqlite3_errmsg(raw) : "out of memory") + ")");
  sqlite3_busy_timeout(db.get(), kBusyMs);
  std::string err;
  const int version = user_version(db.get(), &err);
  if (version < 0)
    return fail("not a joule job database (sqlite: " + err + ")", is_damage(db.get()));
  if (version > kSchemaVersion)
    return fail("written by a newer jouled (schema " + std::to_string(version) +
                ", this one reads up to " + std::to_string(kSchemaVersion) + ")");
  if (read_only && version == 0) return fail("holds no joule job records (schema 0)");
  if (!read_only) {
    if (const std::string bad = quick_check(db.get()); !bad.empty())
      return fail("fails SQLite's quick_check: " + bad, true);
    if (!set_up(db.get(), version, &err))
      return fail("cannot set up the job table (sqlite: " + err + ")", is_damage(db.get()));
  }
  return std::make_unique<SqliteJobStore>(std::move(db), path);
}

}  // namespace

std::unique_ptr<JobStore> JobStore::open(const std::string& path, std::string* why,
                                         OpenFailure* failure) {
  if (failure) *failure = OpenFailure::other;
  if (!create_private(path, why)) return nullptr;
  return open_db(path, false, why, failure);
}

std::unique_ptr<JobStore> JobStore::open_read_only(const std::string& path, std::string* why) {
  return open_db(path, true, why, nullptr);
}

}  // namespace joule::service
