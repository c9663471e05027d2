// libjoule-mpi: PMPI interposition of the blocking MPI calls. On entry the
// calling thread's CPU is lent (all of them with JOULE_LEWI_POLICY=mpi, see
// docs/lending.md; none with JOULE_LEWI_KEEP_CPU=1) and on return it is
// reclaimed, waiting for a borrower to reach its task boundary. Works by
// LD_PRELOAD or by linking; only the joule_* C API is used, so an MPI program
// without the joule runtime is a plain lender. Every wrapper also marks the
// call in the trace (MPI state and call name, JOULE_TRACE=paraver|chrome).
// With JOULE_LEWI=off and tracing off, a wrapper is a call to PMPI plus two
// calls into libjoule that return at once.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <atomic>

#include "joule/joule.h"

namespace {

// Set once the process joined the CPU table in MPI_Init (or the runtime did):
// checked with one load so that off costs nothing.
std::atomic<bool> g_lending{false};

// The trace brackets the lending, so that the lend and reclaim events of a
// call fall inside its MPI state.
struct BlockingScope {
  const bool on = g_lending.load(std::memory_order_relaxed) || joule_lending_active();
  explicit BlockingScope(const char* name) {
    joule_trace_mpi_enter(name);
    if (on) joule_blocking_enter();
  }
  ~BlockingScope() {
    if (on) joule_blocking_leave();
    joule_trace_mpi_leave();
  }
  BlockingScope(const BlockingScope&) = delete;
  BlockingScope& operator=(const BlockingScope&) = delete;
};

bool g_started = false;  // MPI_Init joined the table (and must leave it)

void after_init() {
  int rank = -1;
  if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS) joule_trace_set_rank(rank);
  g_started = joule_lending_start(JOULE_LENDING_FROM_CONFIG) == JOULE_OK;
  g_lending.store(g_started, std::memory_order_relaxed);
}

}  // namespace

#define JOULE_BLOCKING(name, params, args) \
  extern "C" int MPI_##name params {       \
    BlockingScope scope("MPI_" #name);     \
    return PMPI_##name args;               \
  }

extern "C" int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) after_init();
  return rc;
}

extern "C" int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) after_init();
  return rc;
}

extern "C" int MPI_Finalize(void) {
  g_lending.store(false, std::memory_order_relaxed);
  if (g_started) joule_lending_stop();
  g_started = false;
  return PMPI_Finalize();
}

// Point to point.
JOULE_BLOCKING(Send, (const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
               (b, n, t, d, tag, c))
JOULE_BLOCKING(Ssend, (const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
               (b, n, t, d, tag, c))
JOULE_BLOCKING(Rsend, (const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
               (b, n, t, d, tag, c))
JOULE_BLOCKING(Recv, (void* b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status* st),
               (b, n, t, s, tag, c, st))
JOULE_BLOCKING(Sendrecv,
               (const void* sb, int sn, MPI_Datatype st, int d, int stag, void* rb, int rn,
                MPI_Datatype rt, int s, int rtag, MPI_Comm c, MPI_Status* status),
               (sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, status))
JOULE_BLOCKING(Sendrecv_replace,
               (void* b, int n, MPI_Datatype t, int d, int stag, int s, int rtag, MPI_Comm c,
                MPI_Status* status),
               (b, n, t, d, stag, s, rtag, c, status))
JOULE_BLOCKING(Probe, (int s, int tag, MPI_Comm c, MPI_Status* st), (s, tag, c, st))
JOULE_BLOCKING(Mprobe, (int s, int tag, MPI_Comm c, MPI_Message* m, MPI_Status* st),
               (s, tag, c, m, st))
JOULE_BLOCKING(Mrecv, (void* b, int n, MPI_Datatype t, MPI_Message* m, MPI_Status* st),
               (b, n, t, m, st))

// Completion.
JOULE_BLOCKING(Wait, (MPI_Request * r, MPI_Status* st), (r, st))
JOULE_BLOCKING(Waitall, (int n, MPI_Request r[], MPI_Status* st), (n, r, st))
JOULE_BLOCKING(Waitany, (int n, MPI_Request r[], int* i, MPI_Status* st), (n, r, i, st))
JOULE_BLOCKING(Waitsome, (int n, MPI_Request r[], int* out, int idx[], MPI_Status st[]),
               (n, r, out, idx, st))

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
