// A process killed while it holds a GPU clock lock leaves its record
// behind; `joule-ctl restore` resets the clocks through NVML and removes
// it, and leaves a live owner's record alone.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_meter.hpp"
#include "nvml_clock_record.hpp"
#include "nvml_fixture.hpp"
#include "process_identity.hpp"
#include "run_command.hpp"

namespace {

using joule_test::kBus;
using joule_test::run_status;
using NvmlRestore = joule_test::NvmlFixture;

// A child that locks the clock, says so on the pipe, and waits to be killed.
pid_t lock_in_child(const joule::cuda::CudaSettings& s, int mhz) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    auto m = joule::cuda::open_gpu_meter(s, kBus);
    const char ok = m->set_sm_clock_mhz(mhz).ok ? '1' : '0';
    if (::write(fds[1], &ok, 1) != 1) ::_exit(3);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  char ok = 0;
  const bool read = ::read(fds[0], &ok, 1) == 1;
  ::close(fds[0]);
  return read && ok == '1' ? pid : -1;
}

// A pid no process has: a child's, after it is reaped.
pid_t gone_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

// A lock record as a joule process would leave it.
void write_lock_record(const std::string& dir, int pid, unsigned long long start_time) {
  joule::cuda::nvml::ClockRecord r;
  r.pid = pid;
  r.start_time = start_time;
  r.bus_id = kBus;
  r.locked = true;
  std::string error;
  ASSERT_TRUE(joule::cuda::nvml::write_clock_record(dir, r, &error)) << error;
}

std::string restore_cmd(const std::string& dir, const std::string& extra = "") {
  return std::string(JOULE_CTL_EXE) + " restore --state-dir " + dir +
         " --nvml " FAKE_NVML_LIBRARY " " + extra;
}

TEST_F(NvmlRestore, AKilledOwnersClockLockIsReset) {
  const pid_t pid = lock_in_child(settings_, 1005);
  ASSERT_GT(pid, 0);
  ASSERT_EQ(state_files(), 1u);
  // Alive: left alone.
  auto [rc, out] = run_status(restore_cmd(state_dir()));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("belong to running processes"), std::string::npos) << out;
  EXPECT_EQ(state_files(), 1u);

  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  std::tie(rc, out) = run_status(restore_cmd(state_dir(), "--dry-run"));
  EXPECT_NE(out.find("would reset GPU 0000:3B:00.0 clocks changed by process"), std::string::npos)
      << out;
  EXPECT_EQ(calls(), "set_locked 0000:3B:00.0 1005 1005\n");
  std::tie(rc, out) = run_status(restore_cmd(state_dir()));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("reset GPU 0000:3B:00.0 clocks changed by process " + std::to_string(pid)),
            std::string::npos)
      << out;
  EXPECT_EQ(calls(), "set_locked 0000:3B:00.0 1005 1005\nreset_locked 0000:3B:00.0\n");
  EXPECT_EQ(state_files(), 0u);
}

TEST_F(NvmlRestore, ARefusedResetKeepsTheRecordAndFails) {
  const pid_t pid = lock_in_child(settings_, 1410);
  ASSERT_GT(pid, 0);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ::setenv("FAKE_NVML_PERMISSION", "deny", 1);
  auto [rc, out] = run_status(restore_cmd(state_dir()));
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("nvmlDeviceResetGpuLockedClocks: Insufficient Permissions"), std::string::npos)
      << out;
  EXPECT_EQ(state_files(), 1u);  // for a later try as root
}

// The pid of the record's owner now names another process (the parent
// here, which started at another time): the owner is gone, its lock reset.
TEST_F(NvmlRestore, APidReusedByAnotherProcessIsNotTheOwner) {
  const int other = ::getppid();
  const unsigned long long start = joule::core::process_start_time(other);
  ASSERT_GT(start, 0u);
  write_lock_record(state_dir(), other, start + 1);
  auto [rc, out] = run_status(restore_cmd(state_dir()));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("reset GPU 0000:3B:00.0 clocks changed by process " + std::to_string(other)),
            std::string::npos)
      << out;
  EXPECT_EQ(calls(), "reset_locked 0000:3B:00.0\n");
  EXPECT_EQ(state_files(), 0u);
}

// A dead owner's lock on a GPU a running process has locked since: undoing
// it would undo the live one's, so it waits; once that one is gone too,
// both are reset.
TEST_F(NvmlRestore, ADeadOwnersRecordWaitsForALiveOneOnTheSameGpu) {
  write_lock_record(state_dir(), gone_pid(), 1);
  const pid_t live = lock_in_child(settings_, 1410);
  ASSERT_GT(live, 0);
  ASSERT_EQ(state_files(), 2u);
  auto [rc, out] = run_status(restore_cmd(state_dir()));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("for later: process " + std::to_string(live) + " holds the GPU's clocks now"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("2 state file(s) belong to running processes"), std::string::npos) << out;
  EXPECT_EQ(calls(), "set_locked 0000:3B:00.0 1410 1410\n");
  ::kill(live, SIGKILL);
  ::waitpid(live, nullptr, 0);
  std::tie(rc, out) = run_status(restore_cmd(state_dir()));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(calls(),
            "set_locked 0000:3B:00.0 1410 1410\nreset_locked 0000:3B:00.0\n"
            "reset_locked 0000:3B:00.0\n");
  EXPECT_EQ(state_files(), 0u);
}

}  // namespace
