// The fake NVML's environment for one test (fake_nvml/fake_nvml.cpp reads
// it at each call): a log of the clock calls, a state folder, and the
// settings that point joule at the fake.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cuda_settings.hpp"
#include "temp_dir.hpp"

namespace joule_test {

inline constexpr const char* kBus = "0000:3B:00.0";

class NvmlFixture : public testing::Test {
 protected:
  void SetUp() override {
    ::setenv("FAKE_NVML_LOG", tmp_.file("nvml.log").c_str(), 1);
    ::setenv("FAKE_NVML_GPUS", "0000:3B:00.0,0000:AF:00.0", 1);
    for (const char* v : {"FAKE_NVML_PERMISSION", "FAKE_NVML_ENERGY", "FAKE_NVML_INIT"})
      ::unsetenv(v);
    settings_.nvml = FAKE_NVML_LIBRARY;
    settings_.state_dir = state_dir();
  }
  std::string state_dir() const { return tmp_.file("state"); }
  std::string calls() const {
    std::ifstream in(tmp_.file("nvml.log"));
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
  }
  std::size_t state_files() const {
    std::size_t n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(state_dir(), ec))
      n += e.path().extension() == ".clocks";
    return n;
  }

  TempDir tmp_{"nvml"};
  joule::cuda::CudaSettings settings_;
};

}  // namespace joule_test
