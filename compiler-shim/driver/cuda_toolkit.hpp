// The CUDA toolkit behind joulecc's device(cuda) task functions and .cu
// sources (docs/offload-cuda.md, "joulecc: device(cuda) and ndrange"): where it
// is, nvcc's command for a .cu file, and what the link needs.
#pragma once

#include <string>
#include <vector>

#include "driver.hpp"

namespace joulecc {

struct CudaToolkit {
  std::string root, nvcc, include_dir, lib_dir;
};

// The first nvcc on PATH in a toolkit (its own ../include and lib, or,
// for a wrapper script or a distribution's layout, the directories its dry
// run names), else CUDA_HOME, else CUDA_PATH, else /usr/local/cuda; a
// toolkit has nvcc, include/cuda_runtime_api.h and libcudart_static.a.
// False with `why` saying what was looked at.
bool find_cuda_toolkit(CudaToolkit& tk, std::string& why);

// The static CUDA runtime and what it needs (the CUDA toolkit's "CUDA
// Runtime API" guide: cudart_static with -ldl -lrt -lpthread), and libstdc++.
std::vector<std::string> cuda_link_args(const CudaToolkit& tk);

// OmpSs pragmas in a .cu file: joulecc does not translate .cu files (nvcc
// compiles them), so each one is an error; "" when there is none, else
// "file:line: error: ..." lines.
std::string cuda_source_pragmas(const std::string& path);

// Compiles each .cu source of the plan with nvcc (-ccbin the plan's
// compiler): when linking, into tmp and in its place on the command line;
// with -c, to its object (-o or <stem>.o) and off the compiler's command
// line. Returns the first failing status (0: all compiled).
int compile_cuda_sources(DriverPlan& p, const Paths& paths, const CudaToolkit& tk,
                         const std::string& tmp);

// The driver's CUDA step, when the translations hold device(cuda) task
// functions (`translated`), .cu sources are given, or --cuda: finds the
// toolkit, compiles the .cu files, and sets the compile's -I and the link's
// runtime. 0, or the status to exit with (the error printed).
int cuda_step(DriverPlan& p, const Paths& paths, const std::string& tmp,
              const std::vector<std::string>& translated, std::vector<std::string>& compile_flags,
              std::vector<std::string>& link_flags);

}  // namespace joulecc
