// CUDA tasks for translated code: `#pragma oss task device(cuda)` on a task
// function, with or without ndrange (docs/offload-cuda.md, "joulecc: device(cuda)
// and ndrange"). joulecc's wrapper packs the function's arguments and
// describes each (offset, pointer or not, name) as for device(mic)
// (ompss_card.cpp); here the call becomes a CUDA task through the public
// C++ API (joule/cuda.hpp) whose body, on a host worker, replaces every
// pointer argument by the GPU's copy and runs joulecc's call function with
// the task's stream. The grid is worked out here, at the call, so that a bad
// ndrange is reported where it is written, not by the driver.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "joule/cuda.hpp"
#include "joule/ompss.h"

namespace {

[[noreturn]] void stop(const std::string& name, const std::string& why) {
  std::fprintf(stderr, "joule: device(cuda) task '%s': %s\n", name.c_str(), why.c_str());
  std::fflush(nullptr);
  std::_Exit(1);  // not exit(): this may be a worker, and the runtime would wait for it
}

// ndrange(n, G1..Gn, L1..Ln): block = L, grid = ceil(G / L) per dimension
// (OmpSs-2 user guide, "CUDA tasks": G is the total number of threads).
joule_oss_cuda_launch_t launch_of(const long long* nd, const std::string& name) {
  joule_oss_cuda_launch_t l{nullptr, {1, 1, 1}, {1, 1, 1}};
  if (!nd) return l;
  const long long n = nd[0];
  if (n < 1 || n > 3)
    stop(name, "ndrange: " + std::to_string(n) + " dimensions (allowed: 1, 2, 3)");
  for (long long d = 0; d < n; ++d) {
    const long long g = nd[1 + d], b = nd[1 + n + d];
    if (g < 1 || b < 1 || b > INT_MAX)
      stop(name, "ndrange: dimension " + std::to_string(d + 1) + " has global size " +
                     std::to_string(g) + " and block size " + std::to_string(b) +
                     " (both must be at least 1, the block size at most " +
                     std::to_string(INT_MAX) + ")");
    const long long blocks = g / b + (g % b != 0);
    if (blocks > UINT_MAX)
      stop(name, "ndrange: dimension " + std::to_string(d + 1) + " needs " +
                     std::to_string(blocks) + " blocks (at most " + std::to_string(UINT_MAX) + ")");
    l.grid[d] = static_cast<unsigned>(blocks);
    l.block[d] = static_cast<unsigned>(b);
  }
  return l;
}

// The task's body: the argument block with the GPU's addresses, then the call.
struct CudaCall {
  joule_oss_cuda_call_t call;
  const joule_oss_card_arg_t* table;
  std::size_t nargs;
  std::vector<unsigned char> args;  // operator new: aligned as any argument
  std::string name;
  joule_oss_cuda_launch_t launch;

  void map_argument(joule::cuda_context& c, const joule_oss_card_arg_t& a) {
    if (!a.is_pointer) return;
    void* p;
    std::memcpy(&p, args.data() + a.offset, sizeof p);
    if (!p) return;  // a null pointer stays null
    try {
      p = c.map(p);
    } catch (const joule::error& e) {
      throw joule::error(JOULE_ERR_INVALID, "device(cuda) task '" + name + "': argument '" +
                                                a.name + "': " + e.what());
    }
    std::memcpy(args.data() + a.offset, &p, sizeof p);
  }

  void operator()(joule::cuda_context& c) {
    for (std::size_t i = 0; i < nargs; ++i) map_argument(c, table[i]);
    launch.stream = c.stream();
    if (const char* e = call(args.data(), &launch))
      throw joule::error(JOULE_ERR_INVALID,
                         "device(cuda) task '" + name + "': cudaLaunchKernel failed: " + e);
  }
};

joule::copy_dir copy_dir_of(int kind) {
  if (kind == JOULE_DEP_IN) return joule::copy_dir::in;
  if (kind == JOULE_DEP_OUT) return joule::copy_dir::out;
  return joule::copy_dir::inout;
}

// Asked once: a program without a GPU stops at its first CUDA task.
void require_gpu(const std::string& name) {
  static const std::string why = [] {
    std::string w;
    return joule::cuda_devices(&w).empty() ? (w.empty() ? std::string("none found") : w)
                                           : std::string();
  }();
  if (!why.empty()) stop(name, "no CUDA device: " + why);
}

}  // namespace

extern "C" {

void joule_oss_cuda_task(joule_oss_cuda_call_t call, const joule_oss_card_arg_t* table,
                         size_t nargs, const void* args, size_t args_size,
                         const joule_task_options_t* opts, joule_oss_deps_t* deps, int copy_deps,
                         joule_oss_deps_t* copies, const char* name, const long long* ndrange) {
  const std::string fn = name ? name : "?";
  std::vector<joule::dep> d;
  joule::device_options o;
  o.device = joule::device::cuda;
  o.copy_deps = copy_deps != 0;
  o.task = joule::detail::to_options(opts);
  for (size_t i = 0; i < deps->n; ++i)
    d.push_back({static_cast<joule::dep_kind>(deps->deps[i].kind), deps->deps[i].addr,
                 deps->deps[i].bytes});
  for (size_t i = 0; i < copies->n; ++i)
    o.copies.push_back(
        {copy_dir_of(copies->deps[i].kind), copies->deps[i].addr, copies->deps[i].bytes});
  joule_oss_deps_free(deps);
  joule_oss_deps_free(copies);
  CudaCall body{call, table, nargs, {}, fn, launch_of(ndrange, fn)};
  const auto* a = static_cast<const unsigned char*>(args);
  body.args.assign(a, a + args_size);
  require_gpu(fn);
  try {
    joule::spawn(std::span<const joule::dep>(d), std::move(body), o);
  } catch (const std::exception& e) {
    stop(fn, e.what());
  }
}

}  // extern "C"
