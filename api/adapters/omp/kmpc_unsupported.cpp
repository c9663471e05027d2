// Every other __kmpc_* entry point of the LLVM runtime (libomp 14 exports
// 471; the list is kmpc_unsupported.inc): a program that calls one stops
// with its name, on libjoule-omp alone and with libjoule-omp preloaded
// over libomp, where the call would otherwise reach libomp's runtime
// without its team (docs/openmp.md, "Programs built by clang").
#include "team.hpp"

#define JOULE_KMPC_UNSUPPORTED(name) \
  JOULE_EXPORT void name() { joule::omp::unsupported(#name); }

extern "C" {
#include "kmpc_unsupported.inc"
}
