// What every interposed blocking MPI call does around the real one, shared by
// the C wrappers (mpi_intercept.cpp) and the Fortran ones (mpi_fortran.cpp):
// mark the call in the trace, lend the caller's CPU (and reclaim it on
// return), and tell the mpi-slack energy policy.
#pragma once

namespace joule::mpi {

class BlockingScope {
 public:
  explicit BlockingScope(const char* name);
  ~BlockingScope();
  BlockingScope(const BlockingScope&) = delete;
  BlockingScope& operator=(const BlockingScope&) = delete;

  const bool on;  // lending is on for this process
  int cpu = -1;   // the CPU the call gave up, when it should wait politely
};

// Around PMPI_Init / PMPI_Init_thread and PMPI_Finalize (C or Fortran).
void before_init();
void after_init();
void before_finalize();

}  // namespace joule::mpi
