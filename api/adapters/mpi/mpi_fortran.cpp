// The Fortran MPI bindings (`call mpi_waitall(...)` in gfortran code): Open
// MPI's mpif.h / mpi-module wrappers call the C PMPI_* functions directly, so
// the C interposition never sees a Fortran program's blocking calls. These
// wrappers do the same work around the Fortran PMPI entry points (pmpi_*_),
// found at first use in the process's Fortran MPI library; a C program never
// calls them. Every argument of these calls is passed by reference (no
// hidden string lengths), so each wrapper forwards its pointers unchanged.
// They wait the library's own way: before_init asked it to yield.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "blocking_scope.hpp"

namespace {

using Ptr = void*;

// The Fortran PMPI function `name`, or an abort naming it: a Fortran program
// without Open MPI's Fortran library cannot have called this wrapper.
template <class Fn>
Fn resolve(const char* name) {
  void* f = dlsym(RTLD_DEFAULT, name);
  if (!f) {
    std::fprintf(stderr, "libjoule-mpi: %s not found in the MPI library\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(f);
}

}  // namespace

#define JOULE_F_PARAMS_2 Ptr a0, Ptr a1
#define JOULE_F_ARGS_2 a0, a1
#define JOULE_F_PARAMS_3 JOULE_F_PARAMS_2, Ptr a2
#define JOULE_F_ARGS_3 JOULE_F_ARGS_2, a2
#define JOULE_F_PARAMS_4 JOULE_F_PARAMS_3, Ptr a3
#define JOULE_F_ARGS_4 JOULE_F_ARGS_3, a3
#define JOULE_F_PARAMS_5 JOULE_F_PARAMS_4, Ptr a4
#define JOULE_F_ARGS_5 JOULE_F_ARGS_4, a4
#define JOULE_F_PARAMS_6 JOULE_F_PARAMS_5, Ptr a5
#define JOULE_F_ARGS_6 JOULE_F_ARGS_5, a5
#define JOULE_F_PARAMS_7 JOULE_F_PARAMS_6, Ptr a6
#define JOULE_F_ARGS_7 JOULE_F_ARGS_6, a6
#define JOULE_F_PARAMS_8 JOULE_F_PARAMS_7, Ptr a7
#define JOULE_F_ARGS_8 JOULE_F_ARGS_7, a7
#define JOULE_F_PARAMS_9 JOULE_F_PARAMS_8, Ptr a8
#define JOULE_F_ARGS_9 JOULE_F_ARGS_8, a8
#define JOULE_F_PARAMS_10 JOULE_F_PARAMS_9, Ptr a9
#define JOULE_F_ARGS_10 JOULE_F_ARGS_9, a9
#define JOULE_F_PARAMS_13 JOULE_F_PARAMS_10, Ptr a10, Ptr a11, Ptr a12
#define JOULE_F_ARGS_13 JOULE_F_ARGS_10, a10, a11, a12

// mpi_<lower>_ with n pointer arguments (the last is ierror), traced as MPI_<Name>.
#define JOULE_F_BLOCKING(lower, Name, n)                    \
  extern "C" void mpi_##lower##_(JOULE_F_PARAMS_##n) {      \
    using Fn = void (*)(JOULE_F_PARAMS_##n);                \
    static const Fn real = resolve<Fn>("pmpi_" #lower "_"); \
    joule::mpi::BlockingScope scope("MPI_" #Name);          \
    real(JOULE_F_ARGS_##n);                                 \
  }

// Point to point and completion.
JOULE_F_BLOCKING(send, Send, 7)
JOULE_F_BLOCKING(ssend, Ssend, 7)
JOULE_F_BLOCKING(recv, Recv, 8)
JOULE_F_BLOCKING(sendrecv, Sendrecv, 13)
JOULE_F_BLOCKING(sendrecv_replace, Sendrecv_replace, 10)
JOULE_F_BLOCKING(probe, Probe, 5)
JOULE_F_BLOCKING(wait, Wait, 3)
JOULE_F_BLOCKING(waitall, Waitall, 4)
JOULE_F_BLOCKING(waitany, Waitany, 5)
JOULE_F_BLOCKING(waitsome, Waitsome, 6)
// Collectives.
JOULE_F_BLOCKING(barrier, Barrier, 2)
JOULE_F_BLOCKING(bcast, Bcast, 6)
JOULE_F_BLOCKING(reduce, Reduce, 8)
JOULE_F_BLOCKING(allreduce, Allreduce, 7)
JOULE_F_BLOCKING(gather, Gather, 9)
JOULE_F_BLOCKING(scatter, Scatter, 9)
JOULE_F_BLOCKING(allgather, Allgather, 8)
JOULE_F_BLOCKING(alltoall, Alltoall, 8)
JOULE_F_BLOCKING(scan, Scan, 7)

// Init and finalize: the same hooks as the C ones (the yield request must
// precede the library's start; lending starts once it runs).
extern "C" void mpi_init_(Ptr ierror) {
  using Fn = void (*)(Ptr);
  static const Fn real = resolve<Fn>("pmpi_init_");
  joule::mpi::before_init();
  real(ierror);
  if (*static_cast<int*>(ierror) == 0) joule::mpi::after_init();
}

extern "C" void mpi_init_thread_(Ptr required, Ptr provided, Ptr ierror) {
  using Fn = void (*)(Ptr, Ptr, Ptr);
  static const Fn real = resolve<Fn>("pmpi_init_thread_");
  joule::mpi::before_init();
  real(required, provided, ierror);
  if (*static_cast<int*>(ierror) == 0) joule::mpi::after_init();
}

extern "C" void mpi_finalize_(Ptr ierror) {
  using Fn = void (*)(Ptr);
  static const Fn real = resolve<Fn>("pmpi_finalize_");
  joule::mpi::before_finalize();
  real(ierror);
}
