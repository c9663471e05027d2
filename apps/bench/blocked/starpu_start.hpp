// Starts StarPU 1.3 with `workers` CPU workers (0: StarPU's default) and
// no accelerators, quiet, with a temporary STARPU_HOME unless one is set
// (StarPU writes its calibration files there; a benchmark should leave the
// user's home alone). Shared by the StarPU versions of apps/bench/blocked,
// apps/cholesky and apps/jacobi.
#pragma once

#include <starpu.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace blocked {

// Returns the temporary home made ("" if none); remove it after
// starpu_shutdown() with starpu_remove_home().
inline std::string starpu_start(int workers) {
  setenv("STARPU_SILENT", "1", 0);
  std::string home;
  if (std::getenv("STARPU_HOME") == nullptr) {
    std::string dir = (std::filesystem::temp_directory_path() / "joule_starpu.XXXXXX").string();
    if (mkdtemp(dir.data()) != nullptr) {
      home = dir;
      setenv("STARPU_HOME", dir.c_str(), 1);
    }
  }
  starpu_conf conf;
  starpu_conf_init(&conf);
  if (workers > 0) {
    conf.precedence_over_environment_variables = 1;  // workers wins over STARPU_NCPU
    conf.ncpus = workers;
  }
  conf.ncuda = 0;
  conf.nopencl = 0;
  if (starpu_init(&conf) != 0) throw std::runtime_error("starpu_init failed");
  return home;
}

inline void starpu_remove_home(const std::string& home) {
  if (!home.empty()) std::filesystem::remove_all(home);
}

}  // namespace blocked
