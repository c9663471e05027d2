// Run by lending_mpi_test under mpirun -np 2 with JOULE_LENDING=node.
//
// 1. Rank 1 waits in MPI_Barrier, which libjoule-mpi turns into a lend of
//    its CPU; rank 0 sees the CPU idle in the table, borrows it, gives it
//    back, joins the barrier; after it rank 1 runs on its own CPU again.
// 2. For each blocking call of a list (MPI-3 forms included: the Wait of an
//    Ibarrier, Reduce_scatter_block, a neighbourhood collective, a window
//    fence, ...), rank 1 enters it first and rank 0 joins only once rank 1's
//    CPU is idle in the table: a call that is not intercepted shows up as a
//    named failure (after a timeout), never as a hang. The point-to-point
//    and completion calls that wait politely (through MPI_Test) also check
//    the data and statuses they deliver.
// Exit 0 = pass; rank 0 prints "MPI-LENDING OK".
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>

#include "joule/joule.h"
#include "test_support.hpp"

namespace {

int state_of(int cpu) {
  joule_cpu_info_t i{};
  return joule_get_cpu_info(cpu, &i) == JOULE_OK ? i.state : -1;
}

bool wait_state(int cpu, int state, int ms = 10000) {
  return joule_test::eventually([&] { return state_of(cpu) == state; },
                                std::chrono::milliseconds(ms));
}

int failures = 0;
int rank = 0;

void check(bool ok, const char* what) {
  if (!ok) std::fprintf(stderr, "rank %d: failed: %s\n", rank, what), ++failures;
}

// Rank 1 -> rank 0: "I left call k-1 (my CPU is mine again) and now enter
// call k". Isend/Irecv and Test are not intercepted, so this lends nothing.
void signal_next(int k) {
  MPI_Request r;
  int got = -1;  // lives until the receive completes in MPI_Test below
  if (rank == 1) {
    MPI_Isend(&k, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, &r);
  } else {
    MPI_Irecv(&got, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &r);
  }
  const bool arrived = joule_test::eventually([&] {
    int done = 0;
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
  check(arrived, "rank 1's signal for the next call");
}

void borrow_during_barrier(const int cpus[2]) {
  if (rank == 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    joule_cpu_info_t i{};
    joule_get_cpu_info(cpus[1], &i);
    check(i.state == JOULE_CPU_BUSY && i.usable, "own CPU back after the barrier");
    return;
  }
  // Rank 1 also lends during the Allgather before: retry until its CPU is
  // idle for good (it stays so while rank 1 waits in the barrier).
  int got = 0, cpu = -1;
  joule_test::eventually([&] {
    if (state_of(cpus[1]) == JOULE_CPU_IDLE) joule_borrow_up_to(1, &cpu, &got);
    return got == 1;
  });
  check(got == 1 && cpu == cpus[1], "borrow rank 1's CPU while it waits in MPI_Barrier");
  check(joule_return_cpu(cpus[1]) == JOULE_OK, "return it");
  MPI_Barrier(MPI_COMM_WORLD);
}

using Call = std::pair<const char*, std::function<void()>>;

std::vector<Call> blocking_calls(MPI_Comm ring, MPI_Win win) {
  static int a[2], b[2];
  const int peer = 1 - rank;
  return {
      {"MPI_Wait (of an MPI_Ibarrier)",
       [] {
         MPI_Request r;
         MPI_Ibarrier(MPI_COMM_WORLD, &r);
         MPI_Wait(&r, MPI_STATUS_IGNORE);
       }},
      {"MPI_Waitall (of an MPI_Irecv)",
       [] {
         if (rank == 0) return (void)MPI_Send(b, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
         MPI_Request r;
         MPI_Irecv(a, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r);
         MPI_Waitall(1, &r, MPI_STATUSES_IGNORE);
       }},
      {"MPI_Recv",
       [] {
         if (rank == 1)
           MPI_Recv(a, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
         else
           MPI_Send(b, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
       }},
      {"MPI_Sendrecv",
       [peer] {
         MPI_Sendrecv(b, 1, MPI_INT, peer, 7, a, 1, MPI_INT, peer, 7, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
       }},
      {"MPI_Allreduce", [] { MPI_Allreduce(b, a, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); }},
      {"MPI_Reduce_scatter_block",
       [] { MPI_Reduce_scatter_block(b, a, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); }},
      {"MPI_Alltoall", [] { MPI_Alltoall(b, 1, MPI_INT, a, 1, MPI_INT, MPI_COMM_WORLD); }},
      {"MPI_Neighbor_allgather",
       [ring] { MPI_Neighbor_allgather(b, 1, MPI_INT, a, 1, MPI_INT, ring); }},
      {"MPI_Win_fence", [win] { MPI_Win_fence(0, win); }},
      {"MPI_Comm_dup",
       [] {
         MPI_Comm dup;
         MPI_Comm_dup(MPI_COMM_WORLD, &dup);
         MPI_Comm_free(&dup);
       }},
  };
}

// Point-to-point and completion calls that libjoule-mpi waits for through
// their non-blocking forms on a lent CPU (polite waits): each must still lend
// and deliver. Rank 0 sends 100 + tag with tag; rank 1 checks what it got.
std::vector<Call> polite_calls() {
  static const auto send = [](int tag) {
    const int v = 100 + tag;
    MPI_Send(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
  };
  static const auto recv_nb = [](int tag, int* v, MPI_Request* r) {
    MPI_Irecv(v, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, r);
  };
  return {
      {"MPI_Probe",
       [] {
         if (rank == 0) return send(20);
         MPI_Status st;
         int v = 0;
         MPI_Probe(0, 20, MPI_COMM_WORLD, &st);
         MPI_Recv(&v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
         check(st.MPI_TAG == 20 && v == 120, "MPI_Probe's status, then MPI_Recv's data");
       }},
      {"MPI_Mprobe and MPI_Mrecv",
       [] {
         if (rank == 0) return send(21);
         MPI_Message m;
         int v = 0;
         MPI_Mprobe(0, 21, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
         MPI_Mrecv(&v, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
         check(v == 121, "MPI_Mrecv's data");
       }},
      {"MPI_Waitany (of an MPI_Irecv)",
       [] {
         if (rank == 0) return send(22);
         MPI_Request r;
         int v = 0, index = -1;
         recv_nb(22, &v, &r);
         MPI_Waitany(1, &r, &index, MPI_STATUS_IGNORE);
         check(index == 0 && v == 122, "MPI_Waitany's index and data");
       }},
      {"MPI_Waitsome (of an MPI_Irecv)",
       [] {
         if (rank == 0) return send(23);
         MPI_Request r;
         int v = 0, count = 0, index = -1;
         recv_nb(23, &v, &r);
         MPI_Waitsome(1, &r, &count, &index, MPI_STATUSES_IGNORE);
         check(count == 1 && index == 0 && v == 123, "MPI_Waitsome's count and data");
       }},
      {"MPI_Ssend",
       [] {
         int v = 124;
         if (rank == 1) return (void)MPI_Ssend(&v, 1, MPI_INT, 0, 24, MPI_COMM_WORLD);
         v = 0;
         MPI_Recv(&v, 1, MPI_INT, 1, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
         check(v == 124, "MPI_Ssend's data");
       }},
  };
}

// Rank 1 enters each call first; rank 0 waits for its CPU to be lent.
void each_call_lends(const int cpus[2], const std::vector<Call>& calls) {
  for (std::size_t k = 0; k < calls.size(); ++k) {
    signal_next(int(k));
    if (rank == 0) check(wait_state(cpus[1], JOULE_CPU_IDLE, 3000), calls[k].first);
    calls[k].second();
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int mine = sched_getcpu(), cpus[2] = {-1, -1};
  MPI_Allgather(&mine, 1, MPI_INT, cpus, 1, MPI_INT, MPI_COMM_WORLD);
  check(joule_lending_active() == 1, "lending active after MPI_Init");
  check(cpus[0] != cpus[1], "ranks on distinct CPUs (--bind-to core)");
  borrow_during_barrier(cpus);

  MPI_Comm ring;
  const int dims = 2, periodic = 1;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periodic, 0, &ring);
  static int window[4];
  MPI_Win win;
  MPI_Win_create(window, sizeof window, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  each_call_lends(cpus, blocking_calls(ring, win));
  each_call_lends(cpus, polite_calls());
  MPI_Win_free(&win);
  MPI_Comm_free(&ring);

  int total = 0;
  MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) std::printf("MPI-LENDING OK\n");
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
