// `joule-ctl devices` where no CUDA device is usable, and `joule-ctl
// restore` on GPU clock records it must not trust.
#include <sys/stat.h>

#include <fstream>

#include "nvml_fixture.hpp"
#include "run_command.hpp"

namespace {

using joule_test::run_status;
using NvmlCtl = joule_test::NvmlFixture;

TEST_F(NvmlCtl, DevicesWithoutAGpuSaysWhyAndSucceeds) {
  auto [rc, out] = run_status("JOULE_CARD=emulated JOULE_CUDA_DRIVER=libjoule-no-such-cuda.so.1 " +
                              std::string(JOULE_CTL_EXE) + " devices");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("many-core card: emulated: topology \"package:1 core:60 pu:4\""),
            std::string::npos)
      << out;
#ifdef JOULE_HAVE_CUDA
  EXPECT_NE(out.find("\nno CUDA device (no CUDA driver: libjoule-no-such-cuda.so.1: "),
            std::string::npos)
      << out;
  std::tie(rc, out) = run_status("JOULE_CUDA=off " + std::string(JOULE_CTL_EXE) + " devices");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\nno CUDA device (JOULE_CUDA=off)"), std::string::npos) << out;
#else
  EXPECT_NE(out.find("\nno CUDA device (built without CUDA"), std::string::npos) << out;
#endif
}

TEST_F(NvmlCtl, DevicesJsonIsOneObject) {
  auto [rc, out] = run_status(std::string(JOULE_CTL_EXE) + " devices --json");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out.rfind("{\"card\":{\"mode\":\"none\"", 0), 0u) << out;
  EXPECT_NE(out.find("\"cuda\":{\"driver_version\":0,\"why_none\":\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"gpus\":[]}}\n"), std::string::npos) << out;
}

TEST_F(NvmlCtl, DevicesRejectsBadInput) {
  auto [rc, out] = run_status(std::string(JOULE_CTL_EXE) + " devices --frob");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("unknown option '--frob'"), std::string::npos) << out;
  std::tie(rc, out) = run_status("JOULE_CARD=sideways " + std::string(JOULE_CTL_EXE) + " devices");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("JOULE_CARD"), std::string::npos) << out;
  std::tie(rc, out) =
      run_status("JOULE_CUDA_SM_CLOCK=-4 " + std::string(JOULE_CTL_EXE) + " devices");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("JOULE_CUDA_SM_CLOCK=-4: out of range"), std::string::npos) << out;
}

TEST_F(NvmlCtl, RestoreRefusesARecordItCannotTrust) {
  ::mkdir(state_dir().c_str(), 0700);
  // Contents that do not match the name (another pid), then a readable-by-others file.
  const std::string name =
      state_dir() + "/joule-gpu-" + std::to_string(::geteuid()) + "-999999-0000_3B_00_0.clocks";
  std::ofstream(name) << "joule-gpu-clocks 2\npid 123\nstart 0\nbus 0000:3B:00.0\nlocked\n";
  ::chmod(name.c_str(), 0600);
  auto [rc, out] = run_status(std::string(JOULE_CTL_EXE) + " restore --state-dir " + state_dir() +
                              " --nvml " FAKE_NVML_LIBRARY);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("refused state file " + name + ": its contents do not match its name"),
            std::string::npos)
      << out;
  std::ofstream(name) << "joule-gpu-clocks 2\npid 999999\nstart 0\nbus 0000:3B:00.0\nlocked\n";
  ::chmod(name.c_str(), 0644);
  std::tie(rc, out) = run_status(std::string(JOULE_CTL_EXE) + " restore --state-dir " +
                                 state_dir() + " --nvml " FAKE_NVML_LIBRARY);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("refused state file"), std::string::npos) << out;
  EXPECT_EQ(calls(), "");
  ::chmod(name.c_str(), 0600);  // now trusted, its owner gone: reset
  std::tie(rc, out) = run_status(std::string(JOULE_CTL_EXE) + " restore --state-dir " +
                                 state_dir() + " --nvml " FAKE_NVML_LIBRARY);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(calls(), "reset_locked 0000:3B:00.0\n");
}

}  // namespace
