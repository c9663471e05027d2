// A ring exchange over the task-aware MPI layer (ta_mpi.hpp), run by
// mpirun -np 2 at 1 and 2 workers (tests/api/CMakeLists.txt). Each round
// every rank sends K values to its right neighbour and receives K from its
// left one, one task per value: even tasks block until their requests
// complete, odd ones bind the receive to their completion, and a successor
// reading the received value checks it. At one worker every blocked task
// waits on the stack of the one before it, so only the polling service run
// in those waits can complete the exchange. Rank 0 prints the counts and OK.
#include <joule/joule.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "ta_mpi.hpp"

namespace {

constexpr int kValues = 16;
constexpr int kRounds = 4;

struct Ring {
  int rank = 0, size = 1;
  ta_mpi::Layer layer;
  std::vector<long> sent = std::vector<long>(kValues), got = std::vector<long>(kValues);
  std::atomic<int> errors{0};
};

long value(int rank, int round, int k) { return rank * 100000L + round * 100L + k; }

// One value's exchange, in a task.
void exchange(Ring& r, int round, int k) {
  const int right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;
  const int tag = round * kValues + k;
  r.sent[k] = value(r.rank, round, k);
  MPI_Request recv, send;
  {
    std::lock_guard guard(ta_mpi::mpi_lock());
    MPI_Irecv(&r.got[k], 1, MPI_LONG, left, tag, MPI_COMM_WORLD, &recv);
    MPI_Isend(&r.sent[k], 1, MPI_LONG, right, tag, MPI_COMM_WORLD, &send);
  }
  if (k % 2 == 0) {
    r.layer.wait(recv);
  } else {
    r.layer.bind(recv);  // got[k] is written when the task completes
  }
  r.layer.wait(send);
}

void round_of(Ring& r, int round) {
  const int left = (r.rank + r.size - 1) % r.size;
  if (round == 0) {
    // Rank 1 sends late, so rank 0's requests are pending when first
    // tested and its tasks really block and hold events (checked at the end).
    MPI_Barrier(MPI_COMM_WORLD);
    if (r.rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (int k = 0; k < kValues; ++k) {
    joule::spawn({joule::out(r.got[k]), joule::inout(r.sent[k])},
                 [&r, round, k] { exchange(r, round, k); });
    joule::spawn({joule::in(r.got[k])}, [&r, round, k, left] {
      if (r.got[k] != value(left, round, k)) {
        std::fprintf(stderr, "rank %d round %d value %d: got %ld, expected %ld\n", r.rank, round, k,
                     r.got[k], value(left, round, k));
        r.errors.fetch_add(1);
      }
    });
  }
  joule::taskwait();
}

}  // namespace

int main(int argc, char** argv) {
  ta_mpi::init_serialized(&argc, &argv, "ring");
  Ring r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &r.size);
  r.layer.start();
  for (int round = 0; round < kRounds; ++round) round_of(r, round);
  r.layer.stop();
  int mine[3] = {r.errors.load() + int(r.layer.pending()), r.layer.blocked(), r.layer.bound()};
  int all[3] = {0, 0, 0};
  MPI_Allreduce(mine, all, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const bool ok = all[0] == 0 && all[1] > 0 && all[2] > 0;
  if (r.rank == 0)
    std::printf("ring: %d errors, %d waits blocked, %d receives bound to an event: %s\n", all[0],
                all[1], all[2], ok ? "OK" : "FAILED");
  MPI_Finalize();
  return ok ? 0 : 1;
}
