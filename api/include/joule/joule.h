/* joule C ABI: the stable surface a compiler (joulecc) or a C program targets.
 *
 * A task is made in two steps so that a compiler can lay out the captured
 * variables itself:  create (the runtime allocates the task and its argument
 * block) -> fill the argument block -> add dependencies -> submit.
 * Every function returns JOULE_OK or a joule_status_t error code; the message
 * of the last error on the calling thread is available from joule_last_error().
 */
#ifndef JOULE_JOULE_H
#define JOULE_JOULE_H

#include <joule/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Start explicitly (otherwise the first call starts the runtime, and a bad
 * setting makes that call return JOULE_ERR_CONFIG). settings are n pairs of
 * JOULE_* key and value that override the environment. */
JOULE_EXPORT int joule_init(void);
JOULE_EXPORT int joule_init_with(const char *const *keys, const char *const *values, size_t n);
/* Wait for every task, stop the workers. Also done automatically at exit.
 * JOULE_ERR_STATE from inside a task (any thread): it would wait for that
 * task; the runtime keeps running. exit() inside a task ends the process
 * with its status without waiting for the running tasks (docs/user-guide.md,
 * "Ending the process"). */
JOULE_EXPORT int joule_finalize(void);

/* Allocate a task whose body fn receives a pointer to an argument block of
 * args_size bytes (aligned to 16). opts may be NULL. args_size above
 * PTRDIFF_MAX (no object is larger; the task's header and alignment would
 * wrap size_t): JOULE_ERR_INVALID; a block the system cannot give:
 * JOULE_ERR_NOMEM. On any error *task and *args are NULL and no task exists. */
JOULE_EXPORT int joule_task_create(joule_task_fn_t fn, size_t args_size,
                                   const joule_task_options_t *opts, joule_task_t **task,
                                   void **args);
/* JOULE_ERR_INVALID for a region past the end of the address space, and for
 * a reduction with an operator over more than PTRDIFF_MAX bytes (its private
 * copies could not exist); n (add_deps, taskwait_on) above what an array of
 * joule_dep_t can hold is JOULE_ERR_INVALID too. */
JOULE_EXPORT int joule_task_add_dep(joule_task_t *task, int kind /* joule_dep_kind_t */,
                                    const void *addr, size_t bytes);
JOULE_EXPORT int joule_task_add_deps(joule_task_t *task, const joule_dep_t *deps, size_t n);
JOULE_EXPORT int joule_task_submit(joule_task_t *task);
/* Drop a created task that will not be submitted (e.g. after an add_dep error). */
JOULE_EXPORT int joule_task_discard(joule_task_t *task);

/* Wait for the children of the current task (or of the calling thread). */
JOULE_EXPORT int joule_taskwait(void);
/* Wait only for earlier sibling tasks that touch these data, as a task with
 * these dependencies would (JOULE_DEP_IN waits for writers only). */
JOULE_EXPORT int joule_taskwait_on(const joule_dep_t *deps, size_t n);

/* Task reductions. A dependency of kind JOULE_DEP_REDUCTION with an operator
 * (joule_dep_t.reduction) lets the tasks reducing the same region with the
 * same operator run concurrently: each updates the private copy that
 * joule_reduction_private returns (set to the operator's identity on the
 * thread's first use), and the copies are folded into the data before any
 * other access to it, or at the latest at taskwait / the parent's end.
 * joule_reduction_private: the calling task's copy of the data at orig
 * (orig may point inside the reduced region); NULL with joule_last_error()
 * set when the task holds no reduction there. */
JOULE_EXPORT void *joule_reduction_private(const void *orig);
/* A built-in operator: kind joule_red_kind_t over elements of type
 * joule_red_type_t (a region is an array of them); NULL for a pair C does
 * not define (a bitwise operator on a floating type) or an unknown value. */
JOULE_EXPORT const joule_reduction_op_t *joule_reduction_op(int kind, int type);

/* Run fn over [begin, end) in chunks of grainsize (0: automatic) as tasks and
 * wait for them. args is passed to every chunk as is. */
JOULE_EXPORT int joule_taskloop(joule_loop_fn_t fn, void *args, int64_t begin, int64_t end,
                                int64_t grainsize, const joule_task_options_t *opts);

JOULE_EXPORT int joule_num_workers(void);
/* 0..num_workers-1 on a worker thread, -1 elsewhere. */
JOULE_EXPORT int joule_worker_id(void);
/* Marks the end of an application iteration (energy policies act here). */
JOULE_EXPORT void joule_iteration_boundary(void);
/* Non-zero when called from inside a final task. */
JOULE_EXPORT int joule_in_final(void);

/* Tracing hooks for interposition libraries (libjoule-mpi): the calling
 * thread enters / leaves a blocking call. `name` must be a string literal
 * (e.g. "MPI_Barrier"); the trace shows the MPI state and the call name.
 * No-ops (one load and a branch) unless JOULE_TRACE or JOULE_REPORT is on,
 * or DLB_Init ran (the MPI time of DLB's monitoring regions, dlb_talp.h). */
JOULE_EXPORT void joule_trace_mpi_enter(const char *name);
JOULE_EXPORT void joule_trace_mpi_leave(void);
/* The process's MPI rank, for trace file names and merging (after MPI_Init). */
JOULE_EXPORT void joule_trace_set_rank(int rank);

JOULE_EXPORT const char *joule_last_error(void);
JOULE_EXPORT const char *joule_version(void);

/* ---- CPU lending (LeWI / DROM) ---- */
/* CPUs shared between the processes of a node through a table in shared
 * memory (docs/lending.md). Every CPU has one owner; an owner lends a CPU it
 * does not use, another process borrows it, and only the owner reclaims it:
 * at once if it is idle, else the borrower gives it back at its next task
 * boundary. With JOULE_LENDING=local|node the runtime joins the table when it
 * starts and its workers lend, borrow and return by themselves;
 * joule_lending_start() joins without starting the runtime (a plain MPI rank,
 * DLB_Init). The calls below return JOULE_ERR_STATE when this process is not
 * in a table, JOULE_ERR_INVALID for a CPU number outside it. A CPU is an OS
 * CPU number. None of them starts the runtime. */

#define JOULE_LENDING_FROM_CONFIG 0 /* JOULE_LENDING decides (off: JOULE_ERR_STATE) */
#define JOULE_LENDING_LOCAL 1       /* a private table: this process only */
#define JOULE_LENDING_NODE 2        /* the node table of JOULE_LENDING_SHM */

/* Joins the CPU table owning the process's CPUs (JOULE_CPUS, else its
 * affinity mask). Fails with JOULE_ERR_CONFIG when a CPU is owned by another
 * live process or the table is corrupt, foreign or of another version.
 * Calls nest: each start needs a stop. */
JOULE_EXPORT int joule_lending_start(int mode);
/* Leaves the table: borrowed CPUs are returned, lent ones taken back. */
JOULE_EXPORT int joule_lending_stop(void);
/* 1 if this process is in a CPU table now, else 0. */
JOULE_EXPORT int joule_lending_active(void);

/* Lend every CPU this process runs on except the calling thread's (borrowed
 * ones are returned); the runtime's workers there park at their next task
 * boundary. */
JOULE_EXPORT int joule_lend(void);
/* Take back every own lent CPU: idle ones now, borrowed ones when their
 * borrower reaches a task boundary. */
JOULE_EXPORT int joule_reclaim(void);
/* Borrow every idle CPU of the node (up to the max-parallelism hint). */
JOULE_EXPORT int joule_borrow(void);
/* Give back every borrowed CPU. */
JOULE_EXPORT int joule_return(void);
JOULE_EXPORT int joule_lend_cpu(int cpu);    /* owner: lend it; borrower: return it */
JOULE_EXPORT int joule_reclaim_cpu(int cpu); /* owner only (JOULE_ERR_STATE otherwise) */
JOULE_EXPORT int joule_borrow_cpu(int cpu);  /* an idle CPU of another process */
JOULE_EXPORT int joule_acquire_cpu(int cpu); /* reclaim if owned, else borrow */
JOULE_EXPORT int joule_return_cpu(int cpu);  /* borrower only */

/* Lending as the OpenMP layer sizes a team at each parallel region:
 * how many CPUs this process could run on now (held + own idle + other
 * processes' idle, capped by max parallelism); take up to n more (own lent
 * CPUs first, then idle ones), writing their numbers to cpus (room for n, or
 * NULL) and their count to *got; give back up to n (borrowed first, never
 * the caller's CPU). */
JOULE_EXPORT int joule_cpus_available_now(int *n);
JOULE_EXPORT int joule_borrow_up_to(int n, int *cpus, int *got);
JOULE_EXPORT int joule_give_back(int n, int *cpus, int *given);

/* One CPU as the table sees it. */
typedef enum joule_cpu_state {
  JOULE_CPU_DISABLED = 0, /* owned by no process in the table */
  JOULE_CPU_BUSY = 1,     /* its owner uses it */
  JOULE_CPU_IDLE = 2,     /* lent: free to borrow */
  JOULE_CPU_BORROWED = 3, /* run by guest_pid */
  JOULE_CPU_CLAIMED = 4   /* its owner wants it back; the guest returns it soon */
} joule_cpu_state_t;
typedef struct joule_cpu_info {
  int state; /* joule_cpu_state_t */
  int owner_pid;
  int guest_pid;
  int usable; /* non-zero: this process may run on it now */
} joule_cpu_info_t;
JOULE_EXPORT int joule_get_cpu_info(int cpu, joule_cpu_info_t *info);

/* Blocking calls (the MPI interposition library calls these around every
 * blocking MPI call): lend the caller's CPU unless JOULE_LENDING_KEEP_CPU=1,
 * and take it back after, waiting for its borrower's task boundary. */
JOULE_EXPORT int joule_blocking_enter(void);
JOULE_EXPORT int joule_blocking_leave(void);
/* For libjoule-mpi before MPI_Init: *yield = 1 when blocking MPI calls should
 * leave a lent CPU to its borrower (JOULE_MPI_YIELD=on, or auto with
 * JOULE_LENDING not off), else 0. JOULE_ERR_CONFIG for a bad configuration. */
JOULE_EXPORT int joule_mpi_should_yield(int *yield);
/* For libjoule-mpi after MPI_Init: which blocking MPI calls lend the
 * caller's CPU (DLB_ARGS --lewi-mpi-calls, DLB's meaning; default all). */
#define JOULE_MPI_LEND_NONE 0
#define JOULE_MPI_LEND_ALL 1
#define JOULE_MPI_LEND_BARRIER 2     /* MPI_Barrier only */
#define JOULE_MPI_LEND_COLLECTIVES 3 /* collective calls only */
JOULE_EXPORT int joule_mpi_lend_calls(int *which);
/* mpi-slack (libjoule-mpi calls these around every blocking MPI call, inside
 * joule_blocking_enter / leave): a call that outlasts JOULE_ENERGY_MPI_SLACK_US
 * runs its core at the lowest frequency until it returns. No-ops unless the
 * runtime runs with an energy policy that watches MPI calls (auto,
 * mpi-slack) and the calling thread is a worker whose CPU was not lent. */
JOULE_EXPORT void joule_energy_mpi_enter(void);
JOULE_EXPORT void joule_energy_mpi_leave(void);

/* Application hints (DLB's enable / disable / single / parallel). */
#define JOULE_LENDING_ENABLE 0   /* lend and borrow freely (default) */
#define JOULE_LENDING_DISABLE 1  /* no lending; back to the process's own CPUs */
#define JOULE_LENDING_SINGLE 2   /* serial phase: keep the caller's CPU, lend the rest */
#define JOULE_LENDING_PARALLEL 3 /* end of the serial phase: same as ENABLE */
JOULE_EXPORT int joule_lending_hint(int hint);
/* At most n CPUs in use by this process (0: no cap). */
JOULE_EXPORT int joule_set_max_parallelism(int n);

/* DROM: set the CPUs process pid owns (pid 0: this process). The target
 * applies the mask at its next task boundary; the call waits for that up to
 * JOULE_LENDING_DROM_TIMEOUT_MS and fails with JOULE_ERR_STATE if it does not
 * happen (the request stays; a newer request replaces it). A CPU owned by a
 * third process is refused (JOULE_ERR_STATE). A mask the target could never
 * apply is refused at once with JOULE_ERR_INVALID: a process running the
 * runtime keeps the CPU of the thread that started it (worker 0), so its mask
 * may not omit that CPU (nor be empty). */
JOULE_EXPORT int joule_set_process_mask(int pid, const int *cpus, size_t n);
/* The CPUs pid owns now (pid 0: this process): up to cap numbers into cpus,
 * the full count into *n. */
JOULE_EXPORT int joule_get_process_mask(int pid, int *cpus, size_t cap, size_t *n);
/* Has someone changed this process's mask since the last poll? *changed is
 * set to 1 and the new mask written as in joule_get_process_mask. The
 * runtime polls by itself; this is for programs without it. */
JOULE_EXPORT int joule_poll_drom(int *changed, int *cpus, size_t cap, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_JOULE_H */
