// libjoule-mpi: PMPI interposition of the blocking MPI calls. On entry the
// calling thread's CPU is lent (all of them with JOULE_LENDING_POLICY=mpi, see
// docs/lending.md; none with JOULE_LENDING_KEEP_CPU=1) and on return it is
// reclaimed, waiting for a borrower to reach its task boundary. Works by
// LD_PRELOAD or by linking; only the joule_* C API is used, so an MPI program
// without the joule runtime is a plain lender. Every wrapper also marks the
// call in the trace (MPI state and call name, JOULE_TRACE=paraver|chrome).
// With JOULE_LENDING=off and tracing off, a wrapper is a call to PMPI plus four
// calls into libjoule that return at once (trace, mpi-slack). mpi-slack (an
// energy policy, JOULE_ENERGY_POLICY=auto or mpi-slack, with DVFS) runs a
// core whose call outlasts JOULE_ENERGY_MPI_SLACK_US at its lowest frequency
// until the call returns; a CPU lent for the call is left to its borrower.
//
// A lent CPU must not be burnt by the lender's waiting (JOULE_MPI_YIELD, on
// by default with lending): MPI_Init asks the MPI library to yield in its
// blocking waits (mpi_yield.hpp), and the point-to-point and completion calls
// below wait through their non-blocking forms, backing off while a borrower
// runs on the lent CPU (polite_wait.hpp). Collectives, one-sided and file
// calls keep their blocking form: a non-blocking collective does not match a
// blocking one on another rank.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <atomic>
#include <string_view>

#include "blocking_scope.hpp"
#include "joule/joule.h"
#include "mpi_yield.hpp"
#include "polite_wait.hpp"

namespace joule::mpi {
namespace {

// Set once the process joined the CPU table in MPI_Init (or the runtime did):
// checked with one load so that off costs nothing.
std::atomic<bool> g_lending{false};
// JOULE_MPI_YIELD resolved in MPI_Init: wait politely on a lent CPU.
std::atomic<bool> g_polite{false};
bool g_started = false;  // MPI_Init joined the table (and must leave it)
// DLB_ARGS --lewi-mpi-calls, read in MPI_Init (JOULE_MPI_LEND_*).
std::atomic<int> g_lend_calls{JOULE_MPI_LEND_ALL};

// Whether the call `name` ("MPI_Allreduce") lends under --lewi-mpi-calls.
bool lends_at(const char* name) {
  const int which = g_lend_calls.load(std::memory_order_relaxed);
  if (which == JOULE_MPI_LEND_ALL) return true;
  if (which == JOULE_MPI_LEND_NONE) return false;
  const std::string_view n(name);
  if (which == JOULE_MPI_LEND_BARRIER) return n == "MPI_Barrier";
  for (std::string_view c : {"MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce",
                             "MPI_Gather", "MPI_Scatter", "MPI_Allgather", "MPI_Alltoall",
                             "MPI_Reduce_scatter", "MPI_Scan", "MPI_Exscan", "MPI_Neighbor_"})
    if (n.substr(0, c.size()) == c) return true;  // and their v, w, _block forms
  return false;
}

}  // namespace

BlockingScope::BlockingScope(const char* name)
    : on((g_lending.load(std::memory_order_relaxed) || joule_lending_active()) && lends_at(name)) {
  joule_trace_mpi_enter(name);
  if (on) {
    joule_blocking_enter();
    if (g_polite.load(std::memory_order_relaxed)) cpu = given_up_cpu();
  }
  joule_energy_mpi_enter();  // mpi-slack: a long wait slows this core
}

BlockingScope::~BlockingScope() {
  joule_energy_mpi_leave();
  if (on) joule_blocking_leave();
  joule_trace_mpi_leave();
}

// Before PMPI_Init: JOULE_MPI_YIELD decides whether the MPI library is asked
// to yield while it waits (the user's own setting of the library wins).
void before_init() {
  int yield = 0;
  if (joule_mpi_should_yield(&yield) != JOULE_OK || !yield) return;
  g_polite.store(true, std::memory_order_relaxed);
  ask_library_to_yield(detect_library());
}

void after_init() {
  int rank = -1;
  if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS) joule_trace_set_rank(rank);
  int lend_calls = JOULE_MPI_LEND_ALL;
  if (joule_mpi_lend_calls(&lend_calls) == JOULE_OK) g_lend_calls.store(lend_calls);
  g_started = joule_lending_start(JOULE_LENDING_FROM_CONFIG) == JOULE_OK;
  g_lending.store(g_started, std::memory_order_relaxed);
}

void before_finalize() {
  g_lending.store(false, std::memory_order_relaxed);
  if (g_started) joule_lending_stop();
  g_started = false;
}

}  // namespace joule::mpi

namespace {

using joule::mpi::BlockingScope;
using joule::mpi::polite_wait;
using joule::mpi::polite_wait_request;

// Sendrecv's error: the receive's, else the send's (statuses of Testall).
int first_error(int rc, const MPI_Status st[2]) {
  if (rc != MPI_ERR_IN_STATUS) return rc;
  return st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR;
}

}  // namespace

#define JOULE_BLOCKING(name, params, args) \
  extern "C" int MPI_##name params {       \
    BlockingScope scope("MPI_" #name);     \
    return PMPI_##name args;               \
  }

// A blocking call that, on a CPU it gave up, starts its non-blocking form
// (PMPI_<nb> nb_args, which ends with &r) and completes it politely.
#define JOULE_BLOCKING_VIA(name, nb, params, args, nb_args, status)     \
  extern "C" int MPI_##name params {                                    \
    BlockingScope scope("MPI_" #name);                                  \
    if (scope.cpu < 0) return PMPI_##name args;                         \
    MPI_Request r;                                                      \
    if (const int rc = PMPI_##nb nb_args; rc != MPI_SUCCESS) return rc; \
    return polite_wait_request(scope.cpu, &r, status);                  \
  }

// A blocking call that, on a CPU it gave up, polls `poll` (an expression
// with `done`) politely instead.
#define JOULE_BLOCKING_POLL(name, params, args, poll)               \
  extern "C" int MPI_##name params {                                \
    BlockingScope scope("MPI_" #name);                              \
    if (scope.cpu < 0) return PMPI_##name args;                     \
    return polite_wait(scope.cpu, [&](int* done) { return poll; }); \
  }

extern "C" int MPI_Init(int* argc, char*** argv) {
  joule::mpi::before_init();
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) joule::mpi::after_init();
  return rc;
}

extern "C" int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  joule::mpi::before_init();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) joule::mpi::after_init();
  return rc;
}

extern "C" int MPI_Finalize(void) {
  joule::mpi::before_finalize();
  return PMPI_Finalize();
}

// Point to point.
JOULE_BLOCKING_VIA(Send, Isend, (const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
                   (b, n, t, d, tag, c), (b, n, t, d, tag, c, &r), MPI_STATUS_IGNORE)
JOULE_BLOCKING_VIA(Ssend, Issend,
                   (const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
                   (b, n, t, d, tag, c), (b, n, t, d, tag, c, &r), MPI_STATUS_IGNORE)
JOULE_BLOCKING_VIA(Rsend, Irsend,
                   (const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
                   (b, n, t, d, tag, c), (b, n, t, d, tag, c, &r), MPI_STATUS_IGNORE)
JOULE_BLOCKING_VIA(Recv, Irecv,
                   (void* b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status* st),
                   (b, n, t, s, tag, c, st), (b, n, t, s, tag, c, &r), st)
JOULE_BLOCKING_VIA(Mrecv, Imrecv, (void* b, int n, MPI_Datatype t, MPI_Message* m, MPI_Status* st),
                   (b, n, t, m, st), (b, n, t, m, &r), st)
JOULE_BLOCKING_POLL(Probe, (int s, int tag, MPI_Comm c, MPI_Status* st), (s, tag, c, st),
                    PMPI_Iprobe(s, tag, c, done, st))
JOULE_BLOCKING_POLL(Mprobe, (int s, int tag, MPI_Comm c, MPI_Message* m, MPI_Status* st),
                    (s, tag, c, m, st), PMPI_Improbe(s, tag, c, done, m, st))
JOULE_BLOCKING(Sendrecv_replace,
               (void* b, int n, MPI_Datatype t, int d, int stag, int s, int rtag, MPI_Comm c,
                MPI_Status* status),
               (b, n, t, d, stag, s, rtag, c, status))

extern "C" int MPI_Sendrecv(const void* sb, int sn, MPI_Datatype st, int d, int stag, void* rb,
                            int rn, MPI_Datatype rt, int s, int rtag, MPI_Comm c,
                            MPI_Status* status) {
  BlockingScope scope("MPI_Sendrecv");
  if (scope.cpu < 0) return PMPI_Sendrecv(sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, status);
  MPI_Request r[2];
  if (const int rc = PMPI_Irecv(rb, rn, rt, s, rtag, c, &r[0]); rc != MPI_SUCCESS) return rc;
  if (const int rc = PMPI_Isend(sb, sn, st, d, stag, c, &r[1]); rc != MPI_SUCCESS) {
    PMPI_Cancel(&r[0]);
    PMPI_Request_free(&r[0]);
    return rc;
  }
  MPI_Status both[2] = {};
  const int rc = polite_wait(scope.cpu, [&](int* done) { return PMPI_Testall(2, r, done, both); });
  if (status != MPI_STATUS_IGNORE) *status = both[0];
  return first_error(rc, both);
}

// Completion.
JOULE_BLOCKING_POLL(Wait, (MPI_Request * r, MPI_Status* st), (r, st), PMPI_Test(r, done, st))
JOULE_BLOCKING_POLL(Waitall, (int n, MPI_Request r[], MPI_Status* st), (n, r, st),
                    PMPI_Testall(n, r, done, st))
JOULE_BLOCKING_POLL(Waitany, (int n, MPI_Request r[], int* i, MPI_Status* st), (n, r, i, st),
                    PMPI_Testany(n, r, i, done, st))
// Testsome reports no completion as outcount 0 (MPI_UNDEFINED: none active).
JOULE_BLOCKING_POLL(Waitsome, (int n, MPI_Request r[], int* out, int idx[], MPI_Status st[]),
                    (n, r, out, idx, st), [&] {
                      const int rc = PMPI_Testsome(n, r, out, idx, st);
                      *done = *out != 0;
                      return rc;
                    }())

// Collectives.
JOULE_BLOCKING(Barrier, (MPI_Comm c), (c))
JOULE_BLOCKING(Bcast, (void* b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c))
JOULE_BLOCKING(Reduce,
               (const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c),
               (s, r, n, t, op, root, c))
JOULE_BLOCKING(Allreduce, (const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
               (s, r, n, t, op, c))
JOULE_BLOCKING(Gather,
               (const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root,
                MPI_Comm c),
               (s, sn, st, r, rn, rt, root, c))
JOULE_BLOCKING(Gatherv,
               (const void* s, int sn, MPI_Datatype st, void* r, const int rn[], const int d[],
                MPI_Datatype rt, int root, MPI_Comm c),
               (s, sn, st, r, rn, d, rt, root, c))
JOULE_BLOCKING(Scatter,
               (const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root,
                MPI_Comm c),
               (s, sn, st, r, rn, rt, root, c))
JOULE_BLOCKING(Scatterv,
               (const void* s, const int sn[], const int d[], MPI_Datatype st, void* r, int rn,
                MPI_Datatype rt, int root, MPI_Comm c),
               (s, sn, d, st, r, rn, rt, root, c))
JOULE_BLOCKING(Allgather,
               (const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                MPI_Comm c),
               (s, sn, st, r, rn, rt, c))
JOULE_BLOCKING(Allgatherv,
               (const void* s, int sn, MPI_Datatype st, void* r, const int rn[], const int d[],
                MPI_Datatype rt, MPI_Comm c),
               (s, sn, st, r, rn, d, rt, c))
JOULE_BLOCKING(Alltoall,
               (const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                MPI_Comm c),
               (s, sn, st, r, rn, rt, c))
JOULE_BLOCKING(Alltoallv,
               (const void* s, const int sn[], const int sd[], MPI_Datatype st, void* r,
                const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c),
               (s, sn, sd, st, r, rn, rd, rt, c))
JOULE_BLOCKING(Alltoallw,
               (const void* s, const int sn[], const int sd[], const MPI_Datatype st[], void* r,
                const int rn[], const int rd[], const MPI_Datatype rt[], MPI_Comm c),
               (s, sn, sd, st, r, rn, rd, rt, c))
JOULE_BLOCKING(Reduce_scatter,
               (const void* s, void* r, const int rn[], MPI_Datatype t, MPI_Op op, MPI_Comm c),
               (s, r, rn, t, op, c))
JOULE_BLOCKING(Reduce_scatter_block,
               (const void* s, void* r, int rn, MPI_Datatype t, MPI_Op op, MPI_Comm c),
               (s, r, rn, t, op, c))
JOULE_BLOCKING(Scan, (const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
               (s, r, n, t, op, c))
JOULE_BLOCKING(Exscan, (const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
               (s, r, n, t, op, c))

// MPI-3 neighbourhood collectives.
JOULE_BLOCKING(Neighbor_allgather,
               (const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                MPI_Comm c),
               (s, sn, st, r, rn, rt, c))
JOULE_BLOCKING(Neighbor_allgatherv,
               (const void* s, int sn, MPI_Datatype st, void* r, const int rn[], const int d[],
                MPI_Datatype rt, MPI_Comm c),
               (s, sn, st, r, rn, d, rt, c))
JOULE_BLOCKING(Neighbor_alltoall,
               (const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                MPI_Comm c),
               (s, sn, st, r, rn, rt, c))
JOULE_BLOCKING(Neighbor_alltoallv,
               (const void* s, const int sn[], const int sd[], MPI_Datatype st, void* r,
                const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c),
               (s, sn, sd, st, r, rn, rd, rt, c))
JOULE_BLOCKING(Neighbor_alltoallw,
               (const void* s, const int sn[], const MPI_Aint sd[], const MPI_Datatype st[],
                void* r, const int rn[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm c),
               (s, sn, sd, st, r, rn, rd, rt, c))

// MPI-2/3 one-sided synchronisation: each may wait for other ranks (the
// fence is collective; wait/complete/start pair with post/start of others;
// an exclusive lock may wait for its holder).
JOULE_BLOCKING(Win_fence, (int a, MPI_Win w), (a, w))
JOULE_BLOCKING(Win_wait, (MPI_Win w), (w))
JOULE_BLOCKING(Win_complete, (MPI_Win w), (w))
JOULE_BLOCKING(Win_start, (MPI_Group g, int a, MPI_Win w), (g, a, w))
JOULE_BLOCKING(Win_lock, (int type, int rank, int a, MPI_Win w), (type, rank, a, w))

// Collective file I/O waits for every rank of the file's communicator.
JOULE_BLOCKING(File_read_all, (MPI_File f, void* b, int n, MPI_Datatype t, MPI_Status* st),
               (f, b, n, t, st))
JOULE_BLOCKING(File_write_all, (MPI_File f, const void* b, int n, MPI_Datatype t, MPI_Status* st),
               (f, b, n, t, st))
JOULE_BLOCKING(File_read_at_all,
               (MPI_File f, MPI_Offset o, void* b, int n, MPI_Datatype t, MPI_Status* st),
               (f, o, b, n, t, st))
JOULE_BLOCKING(File_write_at_all,
               (MPI_File f, MPI_Offset o, const void* b, int n, MPI_Datatype t, MPI_Status* st),
               (f, o, b, n, t, st))

// Communicator creation is collective (ranks wait for the slowest).
JOULE_BLOCKING(Comm_split, (MPI_Comm c, int color, int key, MPI_Comm* out), (c, color, key, out))
JOULE_BLOCKING(Comm_split_type, (MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm* out),
               (c, type, key, i, out))
JOULE_BLOCKING(Comm_dup, (MPI_Comm c, MPI_Comm* out), (c, out))
JOULE_BLOCKING(Comm_create, (MPI_Comm c, MPI_Group g, MPI_Comm* out), (c, g, out))
