// The shape of an MPI + OmpSs-2 particle-in-cell code that hung at two
// workers when a blocked task's thread ran the other tasks on its stack:
// communication tasks post MPI_Irecv/MPI_Isend, put the requests in a table
// and block; a polling service MPI_Testall's every entry and unblocks the
// tasks whose requests completed. Here the messages form one chain that
// alternates between the two ranks: chain link p (on rank p % 2) receives
// link p-1 and only then sends link p, so on each rank the tasks must
// resume in chain order whatever order they blocked in. The tasks are
// created in a shuffled order, more of them than workers, so with nested
// blocking some thread holds a task under one that waits for it.
//
// Run by mpirun -np 2 (tests/api/CMakeLists.txt) with an argument: `nanos6`
// blocks through nanos6_block_current_task and the table above; `alpi`
// through the task-aware layer's wait (ta_mpi.hpp, alpi_task_block). Rank 0
// prints "chain: ... OK".
#include <joule/nanos6/nanos6.h>
#include <joule/joule.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "ta_mpi.hpp"

namespace {

constexpr int kRounds = 3;

// The polling table of the Nanos6 mode: requests and the blocked task.
class Table {
 public:
  void start() { nanos6_register_polling_service("chain", &Table::poll, this); }
  void stop() { nanos6_unregister_polling_service("chain", &Table::poll, this); }
  // From a task: blocks until every request of reqs completed.
  void wait_all(MPI_Request* reqs, int n) {
    void* ctx = nanos6_get_current_blocking_context();
    {
      std::lock_guard guard(mutex_);
      entries_.push_back(Entry{reqs, n, ctx});
    }
    nanos6_block_current_task(ctx);  // an early unblock returns at once
  }

 private:
  struct Entry {
    MPI_Request* reqs;
    int n;
    void* ctx;
  };
  static int poll(void* self) {
    auto* t = static_cast<Table*>(self);
    std::vector<void*> done;
    {
      std::lock_guard guard(t->mutex_);
      for (std::size_t i = 0; i < t->entries_.size();) {
        int flag = 0;
        {
          std::lock_guard mpi(ta_mpi::mpi_lock());
          MPI_Testall(t->entries_[i].n, t->entries_[i].reqs, &flag, MPI_STATUSES_IGNORE);
        }
        if (!flag) {
          ++i;
          continue;
        }
        done.push_back(t->entries_[i].ctx);
        t->entries_[i] = t->entries_.back();
        t->entries_.pop_back();
      }
    }
    for (void* ctx : done) nanos6_unblock_task(ctx);
    return 0;
  }
  std::mutex mutex_;
  std::vector<Entry> entries_;
};

struct Chain {
  int rank = 0;
  int links = 0;  // per rank
  bool alpi = false;
  Table table;
  ta_mpi::Layer layer;
  std::vector<long> in, out;
  std::atomic<int> errors{0}, resumed{0};
};

long value(int round, int p) { return round * 1000000L + p; }

void wait(Chain& c, MPI_Request* reqs, int n) {
  if (c.alpi) {
    for (int i = 0; i < n; ++i) c.layer.wait(reqs[i]);
  } else {
    c.table.wait_all(reqs, n);
  }
}

// Link p = 2 * j + rank of the chain.
void link(Chain& c, int round, int j) {
  const int p = 2 * j + c.rank, other = 1 - c.rank;
  MPI_Request req;
  if (p > 0) {
    {
      std::lock_guard guard(ta_mpi::mpi_lock());
      MPI_Irecv(&c.in[j], 1, MPI_LONG, other, p - 1, MPI_COMM_WORLD, &req);
    }
    wait(c, &req, 1);
    if (c.in[j] != value(round, p - 1)) c.errors.fetch_add(1);
  }
  c.out[j] = value(round, p);
  {
    std::lock_guard guard(ta_mpi::mpi_lock());
    MPI_Isend(&c.out[j], 1, MPI_LONG, other, p, MPI_COMM_WORLD, &req);
  }
  wait(c, &req, 1);
  c.resumed.fetch_add(1);
}

void round_of(Chain& c, int round) {
  std::vector<int> order(std::size_t(c.links));
  for (int j = 0; j < c.links; ++j) order[std::size_t(j)] = j;
  std::shuffle(order.begin(), order.end(), std::mt19937(unsigned(11 + 7 * round + c.rank)));
  for (int j : order) joule::spawn({}, [&c, round, j] { link(c, round, j); });
  joule::taskwait();
}

}  // namespace

int main(int argc, char** argv) {
  ta_mpi::init_serialized(&argc, &argv, "chain");
  Chain c;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || argc < 2 || (std::strcmp(argv[1], "nanos6") && std::strcmp(argv[1], "alpi"))) {
    std::fprintf(stderr, "chain: run on 2 ranks with `nanos6` or `alpi`\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  c.alpi = std::strcmp(argv[1], "alpi") == 0;
  c.links = 2 * int(nanos6_get_num_cpus()) + 3;  // more blocked tasks than workers
  c.in.assign(std::size_t(c.links), -1);
  c.out.assign(std::size_t(c.links), -1);
  // A hang says how far it got, well before the test's timeout.
  std::thread([&c] {
    std::this_thread::sleep_for(std::chrono::seconds(60));
    std::fprintf(stderr, "chain: rank %d hung: %d of %d links done\n", c.rank, c.resumed.load(),
                 kRounds * c.links);
    std::_Exit(3);
  }).detach();
  if (c.alpi)
    c.layer.start();
  else
    c.table.start();
  for (int round = 0; round < kRounds; ++round) round_of(c, round);
  if (c.alpi)
    c.layer.stop();
  else
    c.table.stop();
  int mine[2] = {c.errors.load(), c.resumed.load()}, all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const bool ok = all[0] == 0 && all[1] == 2 * kRounds * c.links;
  if (c.rank == 0)
    std::printf("chain: %s, %d links, %d wrong values: %s\n", argv[1], all[1], all[0],
                ok ? "OK" : "FAILED");
  MPI_Finalize();
  return ok ? 0 : 1;
}
