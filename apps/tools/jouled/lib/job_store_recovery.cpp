// open_or_recover (job_store.hpp). A damaged job database is set aside,
// never deleted or repaired in place: an administrator may still read what
// it holds (sqlite3's .recover), while jouled records in a fresh one.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "job_store.hpp"

namespace joule::service {
namespace {

std::string utc_stamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// PATH.corrupt-<UTC time>, with -2, -3, ... when one of that second exists.
std::string aside_name(const std::string& path) {
  const std::string base = path + ".corrupt-" + utc_stamp();
  std::string name = base;
  for (int n = 2; exists(name) && n < 1000; ++n) name = base + "-" + std::to_string(n);
  return name;
}

bool move_aside(const std::string& path, std::string* to, std::string* why) {
  *to = aside_name(path);
  if (::rename(path.c_str(), to->c_str()) != 0) {
    *why = path + ": damaged, and cannot be moved aside to " + *to + ": " + std::strerror(errno);
    to->clear();
    return false;
  }
  // A -wal left beside the fresh database would be replayed into it: what
  // cannot be moved with the damaged file goes.
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    const std::string from = path + suffix;
    if (exists(from) && ::rename(from.c_str(), (*to + suffix).c_str()) != 0) ::unlink(from.c_str());
  }
  return true;
}

}  // namespace

std::unique_ptr<JobStore> open_or_recover(const std::string& path, std::string* moved_to,
                                          std::string* why) {
  moved_to->clear();
  auto failure = JobStore::OpenFailure::other;
  std::string damage;
  if (auto store = JobStore::open(path, &damage, &failure)) return store;
  *why = damage;
  if (failure != JobStore::OpenFailure::damaged || !move_aside(path, moved_to, why)) return nullptr;
  auto store = JobStore::open(path, why);
  if (store) *why = damage;
  return store;
}

}  // namespace joule::service
