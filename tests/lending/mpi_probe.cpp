// Run by lending_mpi_test under mpirun -np 2 with JOULE_LEWI=node: rank 1
// waits in MPI_Barrier, which libjoule-mpi turns into a lend of its CPU;
// rank 0 sees the CPU idle in the table, borrows it, gives it back, joins
// the barrier; after it rank 1 runs on its own CPU again. Exit 0 = pass.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>

#include "joule/joule.h"

namespace {

int state_of(int cpu) {
  joule_cpu_info_t i{};
  return joule_get_cpu_info(cpu, &i) == JOULE_OK ? i.state : -1;
}

bool wait_state(int cpu, int state) {
  for (int i = 0; i < 10000; ++i, ::usleep(1000))
    if (state_of(cpu) == state) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int mine = sched_getcpu(), cpus[2] = {-1, -1};
  MPI_Allgather(&mine, 1, MPI_INT, cpus, 1, MPI_INT, MPI_COMM_WORLD);
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) std::fprintf(stderr, "rank %d: failed: %s\n", rank, what), ++failures;
  };
  check(joule_lending_active() == 1, "lending active after MPI_Init");
  check(cpus[0] != cpus[1], "ranks on distinct CPUs (--bind-to core)");
  if (rank == 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    joule_cpu_info_t i{};
    joule_get_cpu_info(cpus[1], &i);
    check(i.state == JOULE_CPU_BUSY && i.usable, "own CPU back after the barrier");
  } else {
    // Rank 1 also lends during the Allgather above: retry until its CPU is
    // idle for good (it stays so while rank 1 waits in the barrier).
    int got = 0, cpu = -1;
    for (int i = 0; i < 10000 && got == 0; ++i) {
      if (wait_state(cpus[1], JOULE_CPU_IDLE)) joule_borrow_up_to(1, &cpu, &got);
      if (got == 0) ::usleep(1000);
    }
    check(got == 1 && cpu == cpus[1], "borrow rank 1's CPU while it waits in MPI_Barrier");
    check(joule_return_cpu(cpus[1]) == JOULE_OK, "return it");
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int total = 0;
  MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) std::printf("MPI-LENDING OK\n");
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
