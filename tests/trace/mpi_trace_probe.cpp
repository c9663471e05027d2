// One MPI rank for the MPI trace test: joule tasks around three barriers
// (one of them inside a task), traced as JOULE_TRACE says. libjoule-mpi is
// linked in, so each barrier is an MPI call in the trace.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>

#include "joule/joule.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (joule_init() != JOULE_OK) {
    std::fprintf(stderr, "joule_init: %s\n", joule_last_error());
    return 1;
  }
  for (int i = 0; i < 4; ++i) joule::spawn([] {}, {.label = "work"});
  joule::taskwait();
  MPI_Barrier(MPI_COMM_WORLD);
  joule::spawn([] { MPI_Barrier(MPI_COMM_WORLD); }, {.label = "in-task"});
  joule::taskwait();
  MPI_Barrier(MPI_COMM_WORLD);
  joule_finalize();
  MPI_Finalize();
  std::puts("MPI-TRACE OK");
  return 0;
}
