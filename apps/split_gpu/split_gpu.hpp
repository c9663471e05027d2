// split-gpu's runs and their report (report.cpp): one row per mode.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace split_gpu {

struct Result {
  std::string mode;  // cpu, gpu, energy, time, edp
  int iterations = 0;
  double seconds = 0;
  double gpu_joules = 0, cpu_joules = 0;
  bool gpu_measured = false;
  std::string cpu_source;  // rapl, papi, service or model
  double gpu_share = 0;    // the last iteration's
  std::uint64_t bytes_to_gpu = 0, bytes_to_host = 0;
  int sm_clock_mhz = 0;
  std::string clocks;  // the splitter's clocks(): "sm ... MHz, clocks fixed (why)"
  double edp() const { return (gpu_joules + cpu_joules) * seconds; }
};

struct Setup {
  std::string gpu_name;
  int workers = 0, n = 0, iterations = 0;
  std::string energy_source;
};

void print_table(const Setup& s, const std::vector<Result>& rows);
void print_json(std::FILE* f, const Setup& s, const std::vector<Result>& rows);

}  // namespace split_gpu
