// `joule-ctl devices` over the fake CUDA driver (tests/offload/cuda/
// fake_driver) and the fake NVML: each GPU with what its meter reads and
// whether its clocks could be set, in text and JSON.
#include <unistd.h>

#include "nvml_fixture.hpp"
#include "run_command.hpp"
#include "test_users.hpp"
#include "user_reachable.hpp"

namespace {

using joule_test::run_status;
using NvmlDevices = joule_test::NvmlFixture;

// Two fake GPUs on the buses the fake driver gives them, both known to NVML;
// the programs from `reach` when given (a test user runs them).
std::string devices(const std::string& env, const std::string& args = "",
                    const joule_test::UserReachable* reach = nullptr) {
  auto at = [&](const char* file) { return reach ? reach->path(file) : std::string(file); };
  return "JOULE_CUDA_DRIVER=" + at(FAKE_CUDA_LIB) + " JOULE_NVML_LIBRARY=" + at(FAKE_NVML_LIBRARY) +
         " FAKE_CUDA_DEVICES=2 FAKE_NVML_GPUS=0000:10:00.0,0000:11:00.0 " +
         (reach ? reach->env() + " " : "") + env + " " + at(JOULE_CTL_EXE) + " devices " + args;
}

void expect_in(const std::string& out, const std::string& part) {
  EXPECT_NE(out.find(part), std::string::npos) << "'" << part << "' in:\n" << out;
}

TEST_F(NvmlDevices, ListsEachGpuWithItsMeterAndClocks) {
  auto [rc, out] = run_status(devices(""));
  EXPECT_EQ(rc, 0) << out;
  expect_in(out, "CUDA driver ");
  expect_in(out, "2 GPU(s)\n");
  expect_in(out, "GPU 1: Fake CUDA GPU 1 (bus 0000:11:00.0)\n");
  expect_in(out, "  SM clock:  now 1755 MHz, 1980 MHz max; supported 600..1980 MHz (5 clocks)\n");
  expect_in(out, "  memory:    80.0 GiB total, 79.0 GiB free\n");  // NVML's
  expect_in(out, "  meter:     nvml\n");
  expect_in(out, "  energy:    readable (5000.250 J)\n");
  expect_in(out, "  power:     readable (123.5 W)\n");
  expect_in(out, "  compute:   capability ");
  EXPECT_EQ(calls(), "");  // nothing was changed
}

TEST_F(NvmlDevices, SaysWhatIsNotReadable) {
  auto [rc, out] = run_status(devices("FAKE_NVML_ENERGY=unsupported"));
  EXPECT_EQ(rc, 0) << out;
  expect_in(out, "  energy:    not readable\n");
  std::tie(rc, out) = run_status(devices("JOULE_NVML_LIBRARY=libjoule-no-such-nvml.so.1"));
  EXPECT_EQ(rc, 0) << out;
  expect_in(out, "  meter:     none: dlopen libjoule-no-such-nvml.so.1: ");
  expect_in(out, "  memory:    16.0 GiB total, free unknown\n");  // the driver's
  expect_in(out, "  energy:    not readable\n");
  expect_in(out, "  clocks settable: unknown (none: dlopen libjoule-no-such-nvml.so.1");
}

TEST_F(NvmlDevices, JsonListsTheGpus) {
  auto [rc, out] = run_status(devices("", "--json"));
  EXPECT_EQ(rc, 0) << out;
  expect_in(out, "\"why_none\":null,\"gpus\":[{\"index\":0,\"name\":\"Fake CUDA GPU 0\"");
  expect_in(out, "\"pci_bus_id\":\"0000:11:00.0\"");
  expect_in(out, "\"sm_clocks_mhz\":[1980,1755,1410,1005,600],\"meter\":\"nvml\"");
  expect_in(out, "\"power_watts\":123.456");
  expect_in(out, "\"total_bytes\":85899345920,\"free_bytes\":84825604096,");
}

// Decided from NVML's API restriction without changing anything; root may
// always try. As root the other answers are checked as an unprivileged user.
TEST_F(NvmlDevices, SaysWhetherTheClocksCouldBeSet) {
  std::string as_user;
  // joule-ctl and the fake libraries where the user can reach them (a clone
  // in a 0700 folder hides the build tree).
  joule_test::UserReachable reach({JOULE_CTL_EXE, FAKE_CUDA_LIB, FAKE_NVML_LIBRARY});
  if (::geteuid() == 0) {
    auto [rc, out] = run_status(devices("FAKE_NVML_PERMISSION=deny"));
    expect_in(out, "  clocks settable: yes (root)\n");
    if (!joule::test::ensure_user(joule::test::kUser)) GTEST_SKIP() << "cannot create a user";
    if (!reach.usable()) GTEST_SKIP() << "joule-ctl cannot run as a test user: " << reach.why();
    as_user = "cd " + reach.dir() + " && setpriv --reuid=" + joule::test::kUser +
              " --regid=" + joule::test::kUser + " --clear-groups env ";
  }
  auto [rc, out] = run_status(as_user + devices("FAKE_NVML_PERMISSION=deny", "", &reach));
  EXPECT_EQ(rc, 0) << out;
  expect_in(out, "  clocks settable: no: needs root or `nvidia-smi -acp UNRESTRICTED`\n");
  std::tie(rc, out) = run_status(as_user + devices("", "", &reach));
  expect_in(
      out, "  clocks settable: application clocks: yes (unrestricted); locked clocks: root only\n");
  EXPECT_EQ(calls(), "");
}

}  // namespace
