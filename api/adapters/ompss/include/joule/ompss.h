/* joule OmpSs support library: what code translated by joulecc calls, on top
 * of the public C ABI in <joule/joule.h>. Not meant to be written by hand,
 * but stable within a joule release (JOULE_OSS_ABI_VERSION).
 *
 * Errors reported by the runtime (bad region, out of memory) print the
 * runtime's message and abort: translated code has no way to handle them.
 */
#ifndef JOULE_OMPSS_H
#define JOULE_OMPSS_H

#include <joule/joule.h>
#include <stddef.h>
#include <stdint.h>

#define JOULE_OSS_ABI_VERSION 3

#ifdef __cplusplus
extern "C" {
#endif

/* A growing list of dependencies, kept on the creator's stack. */
typedef struct joule_oss_deps {
  size_t n, cap;
  joule_dep_t *deps;
  joule_dep_t local[8];
} joule_oss_deps_t;

static inline void joule_oss_deps_init(joule_oss_deps_t *d) {
  d->n = 0;
  d->cap = 8;
  d->deps = d->local;
}

/* One dependency on [addr, addr + bytes); zero bytes adds nothing. */
JOULE_EXPORT void joule_oss_dep(joule_oss_deps_t *d, int kind, const void *addr, size_t bytes);
/* A multi-dimensional section: ndims dimensions, outermost first; start is
 * the address of the first element; strides in bytes; lens in elements of
 * each dimension. Adds one dependency per contiguous run (rows that touch
 * are merged). */
/* A section length computed at run time: n when n >= 0, else prints
 * "FILE:LINE: ... 'WHAT' ... N" on stderr and exits with status 1 (joulecc
 * passes the clause's place; a constant length <= 0 is a compile error). */
JOULE_EXPORT size_t joule_oss_section_length(long long n, const char *file, int line,
                                             const char *what);
JOULE_EXPORT void joule_oss_dep_strided(joule_oss_deps_t *d, int kind, const void *start, int ndims,
                                        const size_t *strides, const size_t *lens);
/* Shaping [e0]..[en-1]base with optional sections (lo/len NULL: whole). */
JOULE_EXPORT void joule_oss_dep_shaped(joule_oss_deps_t *d, int kind, const void *base,
                                       size_t elem_size, int ndims, const size_t *extents,
                                       const ptrdiff_t *lo, const size_t *len);
/* Task reductions: turns the dependencies added since index `first` (one
 * reduced region) into one reduction on the bytes from `base` (the address
 * of the region's first element or of the variable) to the end of the
 * last, with the built-in operator red_kind (joule_red_kind_t) over
 * elements of type red_type (joule_red_type_t). Aborts naming the pair if
 * joule has no such operator. */
JOULE_EXPORT void joule_oss_dep_reduction(joule_oss_deps_t *d, size_t first, const void *base,
                                          int red_kind, int red_type);
/* In a reducing task: the task's private copy of the data at p (see
 * joule_reduction_private); p itself when the task holds no reduction
 * there (a region of zero bytes registers none). */
JOULE_EXPORT void *joule_oss_reduction_private(const void *p);
/* Frees what joule_oss_deps_t grew (called by submit/taskwait_on). */
JOULE_EXPORT void joule_oss_deps_free(joule_oss_deps_t *d);

/* Creates a task and returns its argument block (aborts on failure). */
JOULE_EXPORT void *joule_oss_task_create(joule_task_fn_t fn, size_t args_size,
                                         const joule_task_options_t *opts, joule_task_t **task);
/* Adds the dependencies, submits and frees d. */
JOULE_EXPORT void joule_oss_task_submit(joule_task_t *task, joule_oss_deps_t *d);
/* taskwait / taskwait on(...) for C code: a failed child aborts with its message. */
JOULE_EXPORT void joule_oss_taskwait(void);
JOULE_EXPORT void joule_oss_taskwait_on(joule_oss_deps_t *d);
/* `release` clauses: joule releases dependencies when a task ends, so this
 * only frees d (the data stay held until then, which is always safe). */
JOULE_EXPORT void joule_oss_release(joule_oss_deps_t *d);
/* Runs fn(args, lo, hi) over [0, n) in chunks and waits for them. */
JOULE_EXPORT void joule_oss_taskloop(joule_loop_fn_t fn, void *args, int64_t n, int64_t grainsize,
                                     const joule_task_options_t *opts);
/* The grain size that splits n iterations into num_tasks chunks. */
JOULE_EXPORT int64_t joule_oss_grain_for_tasks(int64_t n, int64_t num_tasks);
/* Iterations of `for (v = lo; v OP hi; v += step)`; op: 0 <, 1 <=, 2 >, 3 >=, 4 !=. */
JOULE_EXPORT int64_t joule_oss_trip_count(int64_t lo, int64_t hi, int64_t step, int op);

/* critical[(name)]: one process-wide lock per name; *handle caches it. */
JOULE_EXPORT void joule_oss_critical_enter(void **handle, const char *name);
JOULE_EXPORT void joule_oss_critical_exit(void **handle);
/* atomic without OpenMP in the compiler: one global lock. */
JOULE_EXPORT void joule_oss_atomic_enter(void);
JOULE_EXPORT void joule_oss_atomic_exit(void);
/* Combining the private copies of a taskloop reduction: a lock per address. */
JOULE_EXPORT void joule_oss_lock_address(const void *addr);
JOULE_EXPORT void joule_oss_unlock_address(const void *addr);

/* device(..) and copy clauses, counted per device list ("smp", "mic",
 * "smp,mic"); readable through joule_oss_device_records(). Task statements and
 * device(smp) tasks run on the host; device(mic) task functions are card
 * tasks (below). */
JOULE_EXPORT void joule_oss_record_device(const char *devices, int copy_deps, int n_copies);
JOULE_EXPORT uint64_t joule_oss_device_records(const char *device);

/* A device(mic) task function: call(args) runs on the card (devices "mic"),
 * or here when devices also names smp and there is no card, on a copy of the
 * nargs arguments packed in args. Before the call every argument the table
 * marks as a pointer is replaced by the card's copy of what it points at
 * (null stays null; an address outside the task's copied regions fails the
 * task with an error naming the argument). deps order it and, with
 * copy_deps, are copied; copies holds the copy_in / copy_out / copy_inout
 * regions (kinds IN, OUT, INOUT). Frees both lists; aborts with the
 * runtime's message on a bad region. */
typedef void (*joule_oss_card_call_t)(void *args);
typedef struct joule_oss_card_arg {
  size_t offset;  /* in args */
  int is_pointer; /* replaced by the card's copy */
  const char *name;
} joule_oss_card_arg_t;
JOULE_EXPORT void joule_oss_card_task(joule_oss_card_call_t call, const joule_oss_card_arg_t *table,
                                      size_t nargs, const void *args, size_t args_size,
                                      const joule_task_options_t *opts, joule_oss_deps_t *deps,
                                      int copy_deps, joule_oss_deps_t *copies, const char *devices);

/* A device(cuda) task function (docs/offload-cuda.md, "joulecc: device(cuda) and
 * ndrange"): a CUDA task on GPU 0 whose body, on a host worker, replaces
 * every pointer argument the table marks by the GPU's copy of what it points
 * at, then runs call(args, launch) with the task's stream. ndrange is null
 * or {n, G1..Gn, L1..Ln} (n 1..3): launch then holds the grid (G / L rounded
 * up) and block (L) sizes, 1 in unused dimensions. call returns null or the
 * CUDA runtime's error string, which fails the task. name (the task
 * function's) is for messages. Without a GPU the program stops with joule's
 * "no CUDA device" message and exit status 1. Frees both lists. */
struct CUstream_st;
typedef struct joule_oss_cuda_launch {
  struct CUstream_st *stream;
  unsigned int grid[3], block[3];
} joule_oss_cuda_launch_t;
typedef const char *(*joule_oss_cuda_call_t)(void *args, const joule_oss_cuda_launch_t *launch);
JOULE_EXPORT void joule_oss_cuda_task(joule_oss_cuda_call_t call, const joule_oss_card_arg_t *table,
                                      size_t nargs, const void *args, size_t args_size,
                                      const joule_task_options_t *opts, joule_oss_deps_t *deps,
                                      int copy_deps, joule_oss_deps_t *copies, const char *name,
                                      const long long *ndrange);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* The C++ helpers need C++11 (lambdas, rvalue references); C++98 code sees
 * the C ABI above. joulecc compiles the C++98 sources it translates as C++11
 * (docs/porting-ompss.md, section 1). */
#if defined(__cplusplus) && __cplusplus >= 201103L
#include <new>
#include <type_traits>

/* C++ translation targets lambdas: a task body is a closure stored in the
 * task's argument block; exceptions reach the parent's taskwait. */
namespace joule_oss {

JOULE_EXPORT void taskwait();                        // rethrows a child's exception
JOULE_EXPORT void taskwait_on(joule_oss_deps_t *d);  // likewise
JOULE_EXPORT void taskloop_run(joule_loop_fn_t fn, void *ctx, int64_t n, int64_t grainsize,
                               const joule_task_options_t *opts);  // rethrows

template <class F>
void run_closure(void *p) {
  F *f = static_cast<F *>(p);
  struct Destroy {
    F *f;
    ~Destroy() { f->~F(); }
  } guard = {f};
  (*f)();
}

template <class F>
void spawn(joule_oss_deps_t *d, const joule_task_options_t *o, F &&body) {
  typedef typename std::decay<F>::type B;
  static_assert(alignof(B) <= 16, "joulecc: a task captures an over-aligned object");
  joule_task_t *t = 0;
  void *a = joule_oss_task_create(&run_closure<B>, sizeof(B), o, &t);
  try {
    ::new (a) B(static_cast<F &&>(body));
  } catch (...) {
    joule_task_discard(t);
    joule_oss_deps_free(d);
    throw;
  }
  joule_oss_task_submit(t, d);
}

// A task's private copy of the reduced data at p (see joule_oss_reduction_private).
template <class T>
T *reduction_private(T *p) {
  return static_cast<T *>(joule_oss_reduction_private(p));
}

// critical and atomic regions release their lock on every way out.
struct critical_guard {
  void **h;
  explicit critical_guard(void **handle) : h(handle) {}
  ~critical_guard() { joule_oss_critical_exit(h); }
};
struct atomic_guard {
  atomic_guard() { joule_oss_atomic_enter(); }
  ~atomic_guard() { joule_oss_atomic_exit(); }
};

// Each chunk runs on its own copy of the closure (firstprivate per chunk).
template <class F>
void run_chunk(void *ctx, int64_t lo, int64_t hi) {
  F f(*static_cast<F *>(ctx));
  f(lo, hi);
}

template <class F>
void taskloop(int64_t n, int64_t grainsize, const joule_task_options_t *o, F &&body) {
  typedef typename std::remove_reference<F>::type B;
  taskloop_run(&run_chunk<B>, const_cast<void *>(static_cast<const void *>(&body)), n, grainsize,
               o);
}

}  // namespace joule_oss
#endif

#endif /* JOULE_OMPSS_H */
