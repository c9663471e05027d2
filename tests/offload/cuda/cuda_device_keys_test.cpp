// The CUDA keys (config_keys_cuda.cpp): their defaults, and bad values
// naming the key and what is allowed.
#include <gtest/gtest.h>

#include "config.hpp"
#include "config_errors.hpp"
#include "cuda_settings.hpp"

namespace {

using joule_test::config_error_of;

TEST(CudaKeys, Defaults) {
  const joule::cuda::CudaSettings s = joule::core::Config{}.get<joule::cuda::CudaSettings>();
  EXPECT_EQ(s.mode, joule::cuda::CudaMode::automatic);
  EXPECT_EQ(s.driver, "libcuda.so.1");
  EXPECT_EQ(s.streams, 4);
  EXPECT_TRUE(s.pin);
  EXPECT_EQ(s.nvml, "libnvidia-ml.so.1");
  EXPECT_EQ(s.sm_clock_mhz, 0);
}

TEST(CudaKeys, GoodValues) {
  joule::core::Config c;
  c.set("JOULE_CUDA", "required");
  c.set("JOULE_CUDA_DRIVER", " /opt/libcuda.so ");
  c.set("JOULE_CUDA_STREAMS", "64");
  c.set("JOULE_CUDA_PIN", "off");
  c.set("JOULE_CUDA_SM_CLOCK", "1410");
  const auto& s = c.get<joule::cuda::CudaSettings>();
  EXPECT_EQ(s.mode, joule::cuda::CudaMode::required);
  EXPECT_EQ(s.driver, "/opt/libcuda.so");
  EXPECT_EQ(s.streams, 64);
  EXPECT_FALSE(s.pin);
  EXPECT_EQ(s.sm_clock_mhz, 1410);
}

TEST(CudaKeys, BadValuesNameTheKeyAndTheAllowedValues) {
  std::string e = config_error_of("JOULE_CUDA", "on");
  EXPECT_NE(e.find("JOULE_CUDA=on"), std::string::npos) << e;
  EXPECT_NE(e.find("auto, off, required"), std::string::npos) << e;
  e = config_error_of("JOULE_CUDA_STREAMS", "0");
  EXPECT_NE(e.find("1..64"), std::string::npos) << e;
  EXPECT_NE(config_error_of("JOULE_CUDA_STREAMS", "65"), "");
  e = config_error_of("JOULE_CUDA_DRIVER", " ");
  EXPECT_NE(e.find("JOULE_CUDA_DRIVER"), std::string::npos) << e;
  EXPECT_NE(config_error_of("JOULE_NVML_LIBRARY", ""), "");
  EXPECT_NE(config_error_of("JOULE_CUDA_PIN", "maybe"), "");
  EXPECT_NE(config_error_of("JOULE_CUDA_SM_CLOCK", "-1"), "");
}

}  // namespace
