// Asking the MPI library to yield the CPU while it waits in a blocking call,
// so that a CPU lent during the call goes to its borrower instead of to the
// library's busy polling (docs/lending.md, "Blocking calls and MPI").
//
// The mechanism is the library's own setting, put in the environment before
// PMPI_Init reads it, and only where the user has not chosen a value:
//   Open MPI  OMPI_MCA_mpi_yield_when_idle=1, unless that variable is set or an
//             MCA parameter file names mpi_yield_when_idle;
//   MPICH     MPIR_CVAR_POLLS_BEFORE_YIELD=1 (ch3) and
//             MPIR_CVAR_CH4_PROGRESS_THROTTLE=1 (ch4, recent releases), each
//             unless set under any of MPICH's prefixes (MPIR_CVAR_, MPICH_,
//             MPIR_PARAM_).
// These are the MPI library's variables, not joule's: joule's own switch is
// JOULE_MPI_YIELD, read through the C ABI (joule_mpi_should_yield).
#pragma once

#include <string>
#include <vector>

namespace joule::mpi {

enum class MpiLibrary { open_mpi, mpich, other };

// The library behind PMPI (MPI_Get_library_version, valid before MPI_Init).
MpiLibrary detect_library();

// Sets the library's yield settings the user left unset (before PMPI_Init);
// returns the NAME=VALUE pairs it set.
std::vector<std::string> ask_library_to_yield(MpiLibrary lib);

}  // namespace joule::mpi
