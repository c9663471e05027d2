/* joule C ABI for language layers that run teams of threads on joule's
 * workers (libjoule-omp, the OpenMP layer: api/adapters/omp). Not for
 * application code: joule.h is the application's interface.
 *
 * A team's members are ordinary joule tasks submitted with
 * joule_team_submit(); a member waits (barriers, ordered, copyprivate) with
 * joule_wait_until(), which runs ready tasks meanwhile and then sleeps until
 * woken: a layer that knows which threads wait wakes them one by one with
 * joule_wake_slot() (a barrier wakes its team, a team's end its master);
 * joule_wake_waiters() wakes every sleeping thread. */
#ifndef JOULE_TEAM_H
#define JOULE_TEAM_H

#include <joule/joule.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The standard OMP_* variables, parsed and validated by joule's
 * configuration (a bad value fails at start-up, naming the allowed ones). */
typedef struct joule_omp_settings {
  size_t struct_size;     /* sizeof(joule_omp_settings_t) */
  int num_threads;        /* OMP_NUM_THREADS, first level; 0: not set */
  int schedule_kind;      /* OMP_SCHEDULE: 1 static, 2 dynamic, 3 guided, 4 auto */
  int schedule_chunk;     /* 0: the kind's default */
  int schedule_monotonic; /* non-zero: "monotonic:" given */
  int dynamic;            /* OMP_DYNAMIC: -1 not set, 0, 1 */
  int wait_active;        /* OMP_WAIT_POLICY=active */
  int max_active_levels;  /* OMP_MAX_ACTIVE_LEVELS */
  int proc_bind;          /* OMP_PROC_BIND's first level: 0 false, 1 true, 2 primary,
                             3 close, 4 spread (not set: true when places are given) */
  uint64_t stacksize;     /* OMP_STACKSIZE in bytes; 0: not set */
  int workers;            /* JOULE_WORKERS as configured; 0: one per CPU */
  int cpus;               /* CPUs JOULE_CPUS names; 0: the process mask */
  int default_device;     /* OMP_DEFAULT_DEVICE */
  int target_offload;     /* OMP_TARGET_OFFLOAD: 0 default, 1 mandatory, 2 disabled */
  int display_env;        /* OMP_DISPLAY_ENV: 0 false, 1 true, 2 verbose */
  int allocator;          /* OMP_ALLOCATOR: a predefined omp_allocator_handle_t (1..8) */
  int max_task_priority;  /* OMP_MAX_TASK_PRIORITY */
  int num_teams;          /* OMP_NUM_TEAMS; 0: not set */
  int teams_thread_limit; /* OMP_TEAMS_THREAD_LIMIT; 0: not set */
  uint64_t worker_stack;  /* each worker thread's stack in bytes (JOULE_STACK_SIZE,
                             else OMP_STACKSIZE, else the default) */
  int spin_us;            /* JOULE_SPIN_US: how long an idle thread spins before it sleeps */
} joule_omp_settings_t;

/* The running runtime's settings, or (not running) the configuration it
 * would start with; does not start it. JOULE_ERR_CONFIG for a bad value
 * (joule_init then reports which). */
JOULE_EXPORT int joule_omp_get_settings(joule_omp_settings_t *s);

/* The OMPT tool settings (OpenMP 5.2 §19.2.1: how a runtime finds a tool).
 * The values longer than the arrays fail at configuration. */
typedef struct joule_omp_tool_settings {
  size_t struct_size;      /* sizeof(joule_omp_tool_settings_t) */
  int tool;                /* OMP_TOOL: 1 enabled (default), 0 disabled */
  char libraries[4096];    /* OMP_TOOL_LIBRARIES: paths separated by ':' */
  char verbose_init[1024]; /* OMP_TOOL_VERBOSE_INIT: "" (disabled), "stdout", "stderr" or a
                              file name */
} joule_omp_tool_settings_t;
JOULE_EXPORT int joule_omp_get_tool_settings(joule_omp_tool_settings_t *s);

/* OpenMP affinity: the places (OMP_PLACES, GOMP_CPU_AFFINITY), the binding
 * of the outer team (OMP_PROC_BIND) as joule's workers, and the affinity
 * display (OMP_DISPLAY_AFFINITY, OMP_AFFINITY_FORMAT). */
typedef struct joule_omp_affinity {
  size_t struct_size;          /* sizeof(joule_omp_affinity_t) */
  int num_places;              /* 0: threads are not bound to places */
  int workers;                 /* JOULE_WORKERS to start joule with; 0: its default */
  const char *cpus;            /* JOULE_CPUS to start joule with; "": its default */
  const char *note;            /* a warning for the user; "" if none */
  int bind_levels;             /* entries of bind[] in use (1..8) */
  int bind[8];                 /* bind-var per nesting level, numbered as proc_bind;
                                  deeper levels take the last */
  int display_affinity;        /* OMP_DISPLAY_AFFINITY */
  const char *affinity_format; /* OMP_AFFINITY_FORMAT */
} joule_omp_affinity_t;

/* Builds the places and the workers' CPUs from the configuration, within the
 * n CPUs (OS numbers) of `mask`: the process's mask before any library bound
 * a thread. Call before joule_init; the strings and the queries below stay
 * valid until the next call. JOULE_ERR_CONFIG for a bad value. */
JOULE_EXPORT int joule_omp_make_affinity(const int *mask, int n, joule_omp_affinity_t *out);
/* The number of CPUs of place `place` (-1: no such place); the first `max`
 * of them (OS numbers) go to cpus. */
JOULE_EXPORT int joule_omp_place_cpus(int place, int *cpus, int max);
/* The place of a worker on CPU `cpu` (-1: none) and, when not null, its
 * place partition: *part_len places from *part_first, wrapping around. */
JOULE_EXPORT int joule_omp_cpu_place(int cpu, int *part_first, int *part_len);

/* What an affinity line may show of a thread (OMP_AFFINITY_FORMAT's fields). */
typedef struct joule_omp_thread_info {
  int team_num, num_teams; /* %t, %T */
  int level;               /* %L */
  int thread_num;          /* %n */
  int num_threads;         /* %N */
  int ancestor_tnum;       /* %a */
  long native_thread_id;   /* %i */
  long process_id;         /* %P */
  const char *host;        /* %H */
  const char *affinity;    /* %A: CPUs such as 0-3,6 */
} joule_omp_thread_info_t;

/* The line `format` gives for `info`, OpenMP's %[[[0].]size]type fields
 * (a letter or {long_name}); an unknown field is copied as written. Returns
 * its length; writes at most size - 1 characters and a NUL to buf. */
/* What is wrong with `format` (its first bad field, and where), as
 * joule_omp_format_affinity's return and buf; 0 when it is valid. */
JOULE_EXPORT size_t joule_omp_check_affinity_format(const char *format, char *buf, size_t size);
JOULE_EXPORT size_t joule_omp_format_affinity(const char *format,
                                              const joule_omp_thread_info_t *info, char *buf,
                                              size_t size);

/* Submits n created tasks so that none stays in the caller's private
 * (immediate-successor) slot: team members must be free to start on other
 * workers at once. Tasks without dependencies go round-robin to the other
 * workers' own queues. */
JOULE_EXPORT int joule_team_submit(joule_task_t *const *tasks, int n);
/* Hands the calling thread's privately held ready tasks back to the queue
 * (a team member calls it first: it will block, others must take them). */
JOULE_EXPORT void joule_release_private(void);
/* Runs ready tasks until done(arg) returns non-zero; with none to run, spins
 * for JOULE_SPIN_US, then sleeps until woken. */
JOULE_EXPORT int joule_wait_until(int (*done)(void *), void *arg);
/* Registers for the calling thread a count the layer keeps (such as the
 * locks that tasks on this thread hold): while it is positive, the thread's
 * waits (taskwait, joule_wait_until, an undeferred task's dependencies)
 * run only the descendants of the task that waits, as OpenMP's tied tasks
 * do; an unrelated task run on top of a task holding a lock could wait for
 * that lock forever. The count must live as long as the thread (a
 * thread_local); only this thread reads it. NULL unregisters. */
JOULE_EXPORT void joule_restrict_waits_by(const int *count);
/* Wakes every thread sleeping in joule_wait_until (and idle workers). */
JOULE_EXPORT void joule_wake_waiters(void);
/* Where the calling thread sleeps in joule_wait_until: stored by a layer
 * where the thread that ends the wait finds it. Valid until the runtime
 * stops; NULL before it started. */
typedef struct joule_wait_slot joule_wait_slot_t;
JOULE_EXPORT joule_wait_slot_t *joule_current_wait_slot(void);
/* Wakes the thread sleeping on `slot`, if it sleeps (NULL: nothing). Call it
 * after making the awaited condition true. */
JOULE_EXPORT void joule_wake_slot(joule_wait_slot_t *slot);
/* Non-zero when the runtime runs more workers than it has CPUs (more than
 * the mask's CPUs or a cgroup CPU quota): waits should yield or sleep soon
 * rather than spin, the thread they wait for may need this CPU. */
JOULE_EXPORT int joule_oversubscribed(void);
/* Workers that exist now, guests on borrowed CPUs included. */
JOULE_EXPORT int joule_worker_count(void);
/* At a parallel region's start: up to `want` workers that can run at once.
 * With lending on, own lent CPUs are taken back and idle ones borrowed (a
 * guest worker starts on each) until `want` are usable; *got is how many
 * the team may count on. Without lending, the workers that exist. */
JOULE_EXPORT int joule_reserve_workers(int want, int *got);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_TEAM_H */
