#include "cpu_owner.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "state_check.hpp"
#include "state_file.hpp"
#include "sysfs.hpp"

namespace joule::platform {
namespace {

struct Owner {
  int pid = 0;
  unsigned long long start_time = 0;
};

// The folder's lock, held for the life of the object (closing releases it).
class DirLock {
 public:
  explicit DirLock(const std::string& dir) {
    fd_ = ::open((dir + "/joule-owners.lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                 0600);
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~DirLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

Owner self() {
  static const Owner me{int(::getpid()), process_start_time(int(::getpid()))};
  // A forked child is another process: compute it afresh.
  if (me.pid == int(::getpid())) return me;
  return {int(::getpid()), process_start_time(int(::getpid()))};
}

// The record of `cpu`; pid 0 when there is none (or it is not a record).
Owner read_owner(const std::string& dir, int cpu) {
  Owner o;
  std::string why;
  auto text = read_trusted_state_text(dir, owner_file_name(cpu), &why);
  if (!text) return o;
  std::istringstream is(*text);
  if (!(is >> o.pid >> o.start_time) || o.pid <= 0) return {};
  return o;
}

bool write_owner(const std::string& dir, int cpu, const Owner& o) {
  const std::string path = dir + "/" + owner_file_name(cpu);
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const std::string text = std::to_string(o.pid) + " " + std::to_string(o.start_time) + "\n";
  bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  ok = ::close(fd) == 0 && ok;
  if (ok) ok = ::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) ::unlink(tmp.c_str());
  return ok;
}

ClaimResult refuse(std::string why, int holder = 0) { return {false, holder, std::move(why)}; }

// A dead owner's originals go back before anyone saves what it left.
bool repair_dead(const std::string& dir, int pid, const std::string& sysfs_root, std::string* why) {
  const RepairResult r = repair_state_of(dir, pid, sysfs_root);
  struct stat st {};
  if (::lstat((dir + "/" + state_file_name(pid)).c_str(), &st) != 0) return true;
  *why = "its state file could not be restored" +
         (r.messages.empty() ? std::string() : " (" + r.messages.back() + ")") +
         "; run joule-ctl restore";
  return false;
}

}  // namespace

std::string owner_file_name(int cpu) { return "joule-cpu" + std::to_string(cpu) + ".owner"; }

ClaimResult claim_cpus(const std::string& dir, const std::vector<int>& cpus,
                       const std::string& sysfs_root) {
  std::string why;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return refuse("cannot create " + dir + " for the CPU owner records: " + std::strerror(errno));
  if (!trusted_state_dir(dir, &why)) return refuse("no CPU owner records: " + why);
  DirLock lock(dir);
  if (!lock.held())
    return refuse("cannot lock " + dir + "/joule-owners.lock: " + std::strerror(errno));
  const Owner me = self();
  for (int cpu : cpus) {
    const Owner o = read_owner(dir, cpu);
    if (o.pid == 0 || (o.pid == me.pid && o.start_time == me.start_time)) continue;
    const std::string what = "cpu " + std::to_string(cpu) + " ";
    if (o.pid != me.pid && process_alive(o.pid, o.start_time))
      return refuse(what + "is held by joule process " + std::to_string(o.pid) +
                        " (it changed its frequency first and restores it)",
                    o.pid);
    if (!repair_dead(dir, o.pid, sysfs_root, &why))
      return refuse(what + "was held by joule process " + std::to_string(o.pid) +
                    ", now gone, and " + why);
  }
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    if (write_owner(dir, cpus[i], me)) continue;
    why = "cannot write " + dir + "/" + owner_file_name(cpus[i]) + ": " + std::strerror(errno);
    for (std::size_t j = 0; j < i; ++j) ::unlink((dir + "/" + owner_file_name(cpus[j])).c_str());
    return refuse(why);
  }
  return {true, 0, {}};
}

void release_cpus(const std::string& dir, const std::vector<int>& cpus) {
  DirLock lock(dir);
  const Owner me = self();
  for (int cpu : cpus) {
    const Owner o = read_owner(dir, cpu);
    if (o.pid == me.pid && o.start_time == me.start_time)
      ::unlink((dir + "/" + owner_file_name(cpu)).c_str());
  }
}

}  // namespace joule::platform
