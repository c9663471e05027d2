// joule-ctl restore: replays the state files that joule processes write
// before changing cpufreq files, for processes that are gone (SIGKILL, a
// crash, a node-level kill). The runtime does the same at every start.
// GPU clock records in the same folder are undone through NVML
// (restore_gpu_clocks.cpp).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "commands.hpp"
#include "cuda_settings.hpp"
#include "state_file.hpp"

namespace joule::ctl {
namespace {

void restore_usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: joule-ctl restore [--state-dir DIR] [--sysfs-root DIR] [--nvml LIB] [--all]\n"
      "                        [--dry-run]\n\n"
      "Writes back the CPU frequency settings (governor, scaling_setspeed,\n"
      "scaling_min/max_freq) that joule processes changed and could not restore,\n"
      "and resets the GPU clocks they locked (through NVML).\n"
      "A state file is used only if it and its folder belong to you and nobody\n"
      "else may write them, and it names only those cpufreq files with plausible\n"
      "contents; any other is reported and left alone (docs/platform.md).\n\n"
      "  --state-dir DIR  where the state files are (default: $JOULE_STATE_DIR,\n"
      "                   else $XDG_RUNTIME_DIR/joule, else /run/joule)\n"
      "  --sysfs-root DIR the tree the saved files must lie in (default:\n"
      "                   $JOULE_SYSFS_ROOT, else /)\n"
      "  --nvml LIB       the NVML library for GPU clocks (default: libnvidia-ml.so.1)\n"
      "  --all            also undo the changes of joule processes still running\n"
      "  --dry-run        only say what would be restored\n");
}

std::string default_dir() {
  if (const char* d = std::getenv("JOULE_STATE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x && *x) return std::string(x) + "/joule";
  return "/run/joule";
}

std::string default_sysfs_root() {
  if (const char* r = std::getenv("JOULE_SYSFS_ROOT"); r && *r) return r;
  return "/";
}

}  // namespace

int cmd_restore(int argc, char** argv) {
  std::string dir = default_dir();
  std::string nvml = cuda::CudaSettings{}.nvml;
  platform::RepairOptions opt;
  opt.sysfs_root = default_sysfs_root();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      restore_usage(stdout);
      return kOk;
    } else if (a == "--state-dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a.rfind("--state-dir=", 0) == 0) {
      dir = a.substr(12);
    } else if (a == "--sysfs-root" && i + 1 < argc) {
      opt.sysfs_root = argv[++i];
    } else if (a.rfind("--sysfs-root=", 0) == 0) {
      opt.sysfs_root = a.substr(13);
    } else if (a == "--nvml" && i + 1 < argc) {
      nvml = argv[++i];
    } else if (a.rfind("--nvml=", 0) == 0) {
      nvml = a.substr(7);
    } else if (a == "--all") {
      opt.include_live = true;
    } else if (a == "--dry-run") {
      opt.dry_run = true;
    } else {
      std::fprintf(stderr, "joule-ctl restore: unknown option '%s'\n", a.c_str());
      restore_usage(stderr);
      return kUsage;
    }
  }
  platform::RepairResult r = platform::repair_stale_states(dir, opt);
  restore_gpu_clocks({dir, nvml, opt}, r);
  for (const auto& m : r.messages)
    std::fprintf(m.rfind("refused", 0) == 0 ? stderr : stdout, "%s\n", m.c_str());
  if (r.live > 0)
    std::printf("%d state file(s) belong to running processes; left alone%s\n", r.live,
                opt.include_live ? "" : " (--all to restore them too)");
  if (r.messages.empty() && r.live == 0) std::printf("nothing to restore in %s\n", dir.c_str());
  return r.failed > 0 || r.refused > 0 ? kFailed : kOk;
}

}  // namespace joule::ctl
