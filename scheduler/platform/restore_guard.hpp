// Leaves the machine as found (DESIGN contract 6). Before joule first
// writes a kernel file it saves the original here: in memory, in a form a
// signal handler can write back, and in the state file. The originals go
// back at the normal end (Dvfs::restore), at exit, and on SIGINT, SIGTERM,
// SIGABRT, SIGHUP and SIGQUIT: the handler restores, then re-raises with the
// previous disposition so the process dies (or runs its own handler) as it
// would have. The deaths by SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGUSR1 and
// SIGUSR2 are covered only where the program left them at SIG_DFL: a
// program's own handler there (a guard page, a JIT, a notification) does
// not mean the process ends. The guard also holds the CPU owner records
// (cpu_owner.hpp) of the CPUs it changes. One guard per process, because
// signal handlers are.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "state_file.hpp"

namespace joule::platform {

class RestoreGuard {
 public:
  static RestoreGuard& instance();

  // Where the state file goes; takes effect for the next save.
  void set_state_dir(std::string dir);
  // Records `real_path`'s original contents before joule's first write to
  // it (later calls for the same path do nothing). False if it cannot be
  // guarded (path or contents too long, too many files): do not write then.
  // A state file that cannot be written only warns (once, in *warning).
  bool save(const std::string& real_path, const std::string& original, std::string* warning);
  bool saved(const std::string& real_path) const;
  // Writes every original back, removes the state file, forgets them.
  // Returns the number of files that could not be restored.
  int restore_all(std::vector<std::string>* errors = nullptr);
  std::size_t size() const noexcept { return count_.load(); }
  std::string state_file_path() const;
  // Makes this process the owner of `cpus` before their first change; false
  // (with *why) if another live joule process holds one of them. Without a
  // state folder there is nothing to coordinate through: true.
  bool claim(const std::vector<int>& cpus, const std::string& sysfs_root, std::string* why);

  // Async-signal-safe restore (two passes of raw writes), then removal of
  // the state file and the owner records if everything went back.
  void restore_from_signal() noexcept;

 private:
  RestoreGuard() = default;
  void install_handlers();
  void release_claims();
  void unlink_owner_records_raw() const noexcept;

  struct Slot {
    char path[512];
    char data[256];
    unsigned len;
  };
  static constexpr std::size_t kCapacity = 8192;
  std::unique_ptr<Slot[]> slots_;  // written before count_ is published
  std::atomic<std::size_t> count_{0};
  char state_path_[600] = {0};  // for unlink from a handler
  // The CPUs this process owns, for the handler: owner_dir_/joule-cpuN.owner.
  static constexpr std::size_t kMaxHeld = 4096;
  std::unique_ptr<int[]> held_cpus_;
  std::atomic<std::size_t> held_count_{0};
  char owner_dir_[512] = {0};
  int held_pid_ = 0;  // who claimed them (a forked child owns nothing)
  mutable std::mutex mu_;
  std::string dir_;
  StateRecord record_;
  bool handlers_ = false;
};

}  // namespace joule::platform
