// DLB_GetGPUAffinity answers from joule's CUDA layer, in DLB's form, here
// against the fake CUDA driver (tests/offload/cuda/fake_driver: device d's
// UUID bytes are 16 d + i); with no GPU it says "none".
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <string>

#include "joule/dlb.h"

namespace {

class GpuAffinity : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("JOULE_CUDA_DRIVER", FAKE_CUDA_LIB, 1);
    setenv("JOULE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("FAKE_CUDA_DEVICES", "2", 1);
    unsetenv("JOULE_CUDA");
  }
  void TearDown() override {
    unsetenv("JOULE_CUDA_DRIVER");
    unsetenv("JOULE_NVML_LIBRARY");
    unsetenv("JOULE_CUDA");
  }
};

TEST_F(GpuAffinity, ShortUuidsAsDlbWritesThem) {
  char buf[256];
  ASSERT_EQ(DLB_GetGPUAffinity(buf, sizeof buf, false), DLB_SUCCESS);
  EXPECT_STREQ(buf, "0 (UUID=..0e0f, default), 1 (UUID=..1e1f)");
}

TEST_F(GpuAffinity, FullUuids) {
  char buf[256];
  ASSERT_EQ(DLB_GetGPUAffinity(buf, sizeof buf, true), DLB_SUCCESS);
  EXPECT_STREQ(buf,
               "0 (UUID=00010203-0405-0607-0809-0a0b0c0d0e0f, default), "
               "1 (UUID=10111213-1415-1617-1819-1a1b1c1d1e1f)");
}

TEST_F(GpuAffinity, TooSmallABufferIsAnError) {
  char buf[8];
  EXPECT_EQ(DLB_GetGPUAffinity(buf, sizeof buf, false), DLB_ERR_NOMEM);
  EXPECT_EQ(DLB_GetGPUAffinity(nullptr, 64, false), DLB_ERR_NOMEM);
}

TEST_F(GpuAffinity, NoGpuSaysNone) {
  setenv("JOULE_CUDA", "off", 1);
  char buf[64];
  EXPECT_EQ(DLB_GetGPUAffinity(buf, sizeof buf, false), DLB_ERR_NOENT);
  EXPECT_STREQ(buf, "none");
}

TEST(DlbDeprecated, AutoSizerIsNotSupported) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_EQ(DLB_AutoSizerStart(), DLB_ERR_NOCOMP);
  EXPECT_EQ(DLB_AutoSizerEnd(), DLB_ERR_NOCOMP);
#pragma GCC diagnostic pop
}

}  // namespace
