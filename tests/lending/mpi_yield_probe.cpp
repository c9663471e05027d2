// Run by lending_mpi_yield_test under mpirun -np 2 (one CPU per rank) with
// JOULE_LENDING=node and libjoule-mpi linked. Rank 0 prints, on stdout:
//
//   library <first line of MPI_Get_library_version>
//   cvar <name>=<value>     the MPI library's yield settings as it sees them
//                           (MPI_T), for each it has
//   YIELD-PROBE borrowed_tasks=B tasks=T lender_cpu_s=C lender_to_guest=R
//
// Once rank 0 has queued tasks of CPU-bound work, rank 1 enters one blocking
// call (argv[1]: "barrier", the default, or "recv") and lends its CPU there;
// rank 0 borrows that CPU for some of its tasks, then joins the call. B is
// how many tasks ran on rank 1's CPU; C is the CPU time rank 1's thread used
// inside the call and R = C / (B x task CPU time), the lender's CPU time
// over the borrower's on the same CPU: near 0 when the lender leaves its CPU
// to the borrower, 1 or more when it keeps polling beside it (the scheduler
// shares a CPU evenly, whatever else runs on the machine).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <sched.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

#include "joule/joule.hpp"
#include "test_support.hpp"

namespace {

double clock_s(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// CPU-bound work: spins until the thread used `us` of CPU time (a task on a
// CPU it shares with a busy-polling lender takes longer in wall time).
void burn_cpu(double us) {
  const double until = clock_s(CLOCK_THREAD_CPUTIME_ID) + us * 1e-6;
  while (clock_s(CLOCK_THREAD_CPUTIME_ID) < until) {
  }
}

void print_library() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(v, &len);
  v[std::strcspn(v, "\n")] = '\0';
  std::printf("library %s\n", v);
}

// One control variable as an integer, if the library has it.
void print_cvar(const char* name) {
  int idx = -1, count = 0;
  MPI_T_cvar_handle h;
  if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS) return;
  if (MPI_T_cvar_handle_alloc(idx, nullptr, &h, &count) != MPI_SUCCESS) return;
  long long value[8] = {};  // room for any integer type of count 1
  if (count == 1 && MPI_T_cvar_read(h, value) == MPI_SUCCESS) {
    int as_int = 0;
    std::memcpy(&as_int, value, sizeof as_int);  // Open MPI and MPICH report these as MPI_INT
    std::printf("cvar %s=%d\n", name, as_int);
  }
  MPI_T_cvar_handle_free(&h);
}

void print_cvars() {
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
  for (const char* n :
       {"mpi_yield_when_idle", "MPIR_CVAR_POLLS_BEFORE_YIELD", "MPIR_CVAR_CH4_PROGRESS_THROTTLE"})
    print_cvar(n);
  MPI_T_finalize();
}

constexpr int kTasks = 150;
constexpr double kTaskUs = 2000;

// Rank 0 -> rank 1: "my tasks are queued, lend now". Isend, Irecv and Test
// are not intercepted, so this lends nothing.
void go_signal(int rank) {
  int token = 0;
  MPI_Request r;
  if (rank == 0) {
    MPI_Isend(&token, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &r);
  } else {
    MPI_Irecv(&token, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, &r);
  }
  joule_test::eventually([&] {
    int done = 0;
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
}

// Rank 1: once rank 0 is ready to borrow, the blocking call; returns the
// thread CPU time it used in the call.
double lend_in_call(bool recv) {
  go_signal(1);
  const double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
  int token = 0;
  if (recv) {
    MPI_Recv(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
}

// Rank 0: kTasks tasks of kTaskUs of CPU time, some on rank 1's CPU; then
// the call. Returns how many ran on rank 1's CPU.
long borrow_then_join(bool recv, int lender_cpu) {
  joule::spawn([] {});  // starts the runtime
  joule::taskwait();
  std::atomic<long> borrowed{0};
  for (int i = 0; i < kTasks; ++i)
    joule::spawn([&borrowed, lender_cpu] {
      burn_cpu(kTaskUs);
      if (sched_getcpu() == lender_cpu) borrowed.fetch_add(1);
    });
  go_signal(0);
  joule::taskwait();
  int token = 1;
  if (recv) {
    MPI_Send(&token, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return borrowed.load();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const bool recv = argc > 1 && std::string(argv[1]) == "recv";
  int rank = 0, cpus[2] = {-1, -1};
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int mine = sched_getcpu();
  MPI_Allgather(&mine, 1, MPI_INT, cpus, 1, MPI_INT, MPI_COMM_WORLD);
  if (rank == 0) print_library(), print_cvars();
  double lender_cpu = 0;
  long borrowed = 0;
  if (rank == 1) lender_cpu = lend_in_call(recv);
  if (rank == 0) borrowed = borrow_then_join(recv, cpus[1]);
  MPI_Bcast(&lender_cpu, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  const double guest_cpu = double(borrowed) * kTaskUs * 1e-6;
  if (rank == 0)
    std::printf("YIELD-PROBE borrowed_tasks=%ld tasks=%d lender_cpu_s=%.4f lender_to_guest=%.3f\n",
                borrowed, kTasks, lender_cpu, guest_cpu > 0 ? lender_cpu / guest_cpu : 99.0);
  MPI_Finalize();
  return 0;
}
