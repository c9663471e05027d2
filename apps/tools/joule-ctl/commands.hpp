// joule-ctl subcommands. Adding one: a function here, a file for it, and a
// row in kCommands (main.cpp).
#pragma once

#include <string>

#include "state_file.hpp"

namespace joule::ctl {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);  // argv[0] is the subcommand name
};

// Exit codes shared by the subcommands.
inline constexpr int kOk = 0;
inline constexpr int kFailed = 1;
inline constexpr int kUsage = 2;

int cmd_restore(int argc, char** argv);
int cmd_show(int argc, char** argv);      // cmd_lending.cpp
int cmd_drom(int argc, char** argv);      // cmd_lending.cpp
int cmd_clean(int argc, char** argv);     // cmd_lending.cpp
int cmd_card_map(int argc, char** argv);  // cmd_card_map.cpp
int cmd_numa(int argc, char** argv);      // cmd_numa.cpp
int cmd_jobs(int argc, char** argv);      // cmd_jobs.cpp
int cmd_access(int argc, char** argv);    // cmd_access.cpp
int cmd_devices(int argc, char** argv);   // cmd_devices.cpp
int cmd_dump(int argc, char** argv);      // cmd_dump.cpp

// restore's GPU part (restore_gpu_clocks.cpp): undoes the GPU clock
// records of dead joule processes in `dir` through the NVML at `nvml`.
struct GpuRestore {
  std::string dir, nvml;
  platform::RepairOptions options;
};
void restore_gpu_clocks(const GpuRestore& g, platform::RepairResult& r);

}  // namespace joule::ctl
