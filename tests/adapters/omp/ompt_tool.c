/* An OMPT tool for the tests (ompt.cmake): records the events of a run and,
 * at the tool's finalisation, checks their structure and prints
 *   ompt_check: OK parallels=.. implicit=.. tasks=.. deps=.. taskwaits=..
 * or "ompt_check: FAIL <why>" (exit status 1). Checked: every thread
 * began before its first event; each thread's tasks nest (implicit tasks,
 * and task_schedule's switches and completions, name the current task);
 * every region ends once, after all its implicit tasks, which were
 * actual_parallelism tasks with distinct indices on distinct threads; each
 * explicit task is created, started and completed once, in that order,
 * its dependences reported in between, and after every earlier sibling
 * it conflicts with had completed; barriers, taskwaits and taskgroups
 * nest and name the current task, and so do worksharing constructs; each
 * mutex released once per acquire.
 * OMPT_CHECK_EXPECT="tasks=31 deps=24" requires those counts exactly. */
#include <omp-tools.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ITEMS 65536
#define MAX_DEPTH 256

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_id = 1;
static char failure[512];
static int n_threads, n_parallels, n_implicit, n_tasks, n_undeferred, n_deps, n_taskwaits,
    n_taskgroups, n_barriers, n_mutexes, n_masked, n_work;

struct region {
  int size, begun, ended, threads_seen;
  uint64_t threads[64];
  unsigned long long indices; /* bit per index (first 64) */
};
struct task {
  uint64_t parent;
  int created, started, completed, ndeps;
  void* dep_addr[8];
  int dep_type[8];
};
static struct region regions[MAX_ITEMS];
static struct task tasks[MAX_ITEMS];

struct thread_log {
  int begun;
  uint64_t id;
  uint64_t stack[MAX_DEPTH]; /* task ids, innermost last */
  int depth;
  int sync[MAX_DEPTH];
  int sync_depth;
  int work[MAX_DEPTH];
  int work_depth;
};
static __thread struct thread_log me;

static void fail(const char* what, uint64_t a, uint64_t b) {
  if (!failure[0])
    snprintf(failure, sizeof failure, "%s (%llu, %llu)", what, (unsigned long long)a,
             (unsigned long long)b);
}
static uint64_t fresh(void) {
  return next_id < MAX_ITEMS ? next_id++ : (fail("too many ids", 0, 0), 0);
}
static void need_thread(const char* ev) {
  if (!me.begun) fail(ev, 0, 0);
}
static uint64_t top(void) { return me.depth ? me.stack[me.depth - 1] : 0; }
static void push(uint64_t t) {
  if (me.depth < MAX_DEPTH) me.stack[me.depth++] = t;
}
static void pop_expect(uint64_t t, const char* what) {
  if (top() != t) fail(what, top(), t);
  if (me.depth) me.depth--;
}

#define LOCKED(...)            \
  do {                         \
    pthread_mutex_lock(&mu);   \
    __VA_ARGS__;               \
    pthread_mutex_unlock(&mu); \
  } while (0)

static void on_thread_begin(ompt_thread_t type, ompt_data_t* data) {
  LOCKED({
    if (me.begun) fail("thread_begin twice on a thread", 0, 0);
    me.begun = 1;
    me.id = data->value = fresh();
    n_threads++;
  });
}
static void on_thread_end(ompt_data_t* data) {
  LOCKED({
    if (!me.begun || data->value != me.id) fail("thread_end without its begin", data->value, me.id);
    me.begun = 0;
  });
}
static void on_parallel_begin(ompt_data_t* task, const ompt_frame_t* frame, ompt_data_t* par,
                              unsigned int size, int flags, const void* ra) {
  LOCKED({
    need_thread("parallel_begin before thread_begin");
    if (task->value != top()) fail("parallel_begin: not the current task", task->value, top());
    par->value = fresh();
    regions[par->value].begun = 1;
    n_parallels++;
  });
}
static void on_parallel_end(ompt_data_t* par, ompt_data_t* task, int flags, const void* ra) {
  LOCKED({
    struct region* r = &regions[par->value];
    if (!r->begun || r->ended) fail("parallel_end: not begun or ended twice", par->value, 0);
    r->ended = 1;
    if (r->threads_seen != r->size)
      fail("parallel_end: implicit tasks != team size", r->threads_seen, r->size);
    if (task->value != top()) fail("parallel_end: not the encountering task", task->value, top());
  });
}
static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t* par, ompt_data_t* task,
                             unsigned int size, unsigned int index, int flags) {
  LOCKED({
    need_thread("implicit_task before thread_begin");
    if (ep == ompt_scope_begin) {
      task->value = fresh();
      tasks[task->value].created = tasks[task->value].started = 1;
      push(task->value);
      if (!(flags & ompt_task_initial)) {
        struct region* r = &regions[par->value];
        if (!r->begun || r->ended) fail("implicit_task in a region not running", par->value, 0);
        if (r->size && r->size != (int)size) fail("implicit_task: sizes differ", r->size, size);
        r->size = (int)size;
        if (index < 64 && (r->indices >> index & 1)) fail("implicit_task: index twice", index, 0);
        if (index < 64) r->indices |= 1ull << index;
        for (int i = 0; i < r->threads_seen && i < 64; ++i)
          if (r->threads[i] == me.id) fail("implicit_task: two members on one thread", me.id, 0);
        if (r->threads_seen < 64) r->threads[r->threads_seen] = me.id;
        r->threads_seen++;
        n_implicit++;
      }
    } else {
      tasks[task->value].completed = 1;
      pop_expect(task->value, "implicit_task end: not the current task");
    }
  });
}

static int conflicts(int a, int b) {
  if (a == b && (a == ompt_dependence_type_in || a == ompt_dependence_type_mutexinoutset ||
                 a == ompt_dependence_type_inoutset))
    return 0;
  return !(a == ompt_dependence_type_in && b == ompt_dependence_type_in);
}

/* Every earlier sibling with a conflicting dependence has completed. */
static void check_order(uint64_t t) {
  const struct task* me_t = &tasks[t];
  for (uint64_t u = 1; u < t; ++u) {
    const struct task* o = &tasks[u];
    if (!o->created || o->parent != me_t->parent || !o->ndeps) continue;
    for (int i = 0; i < me_t->ndeps; ++i)
      for (int j = 0; j < o->ndeps; ++j)
        if (me_t->dep_addr[i] == o->dep_addr[j] && conflicts(me_t->dep_type[i], o->dep_type[j]) &&
            !o->completed)
          fail("task started before a task it depends on completed", t, u);
  }
}

static void on_task_create(ompt_data_t* enc, const ompt_frame_t* frame, ompt_data_t* task,
                           int flags, int has_deps, const void* ra) {
  LOCKED({
    need_thread("task_create before thread_begin");
    if (enc->value != top()) fail("task_create: not the current task", enc->value, top());
    task->value = fresh();
    tasks[task->value].created = 1;
    tasks[task->value].parent = enc->value;
    n_tasks++;
    if (flags & ompt_task_undeferred) n_undeferred++;
    if (!(flags & ompt_task_explicit)) fail("task_create: not explicit", flags, 0);
  });
}
static void on_dependences(ompt_data_t* task, const ompt_dependence_t* deps, int n) {
  LOCKED({
    struct task* t = &tasks[task->value];
    if (!t->created || t->started)
      fail("dependences: not between creation and start", task->value, 0);
    for (int i = 0; i < n && t->ndeps < 8; ++i) {
      t->dep_addr[t->ndeps] = deps[i].variable.ptr;
      t->dep_type[t->ndeps++] = deps[i].dependence_type;
    }
    n_deps += n;
  });
}
static void on_task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  LOCKED({
    need_thread("task_schedule before thread_begin");
    if (prior->value != top())
      fail("task_schedule: prior is not the current task", prior->value, top());
    if (status == ompt_task_switch) {
      struct task* t = &tasks[next->value];
      if (!t->created || t->started) fail("task started twice or never created", next->value, 0);
      t->started = 1;
      check_order(next->value);
      push(next->value);
    } else if (status == ompt_task_complete) {
      struct task* t = &tasks[prior->value];
      if (!t->started || t->completed)
        fail("task completed twice or never started", prior->value, 0);
      t->completed = 1;
      pop_expect(prior->value, "task complete: not the current task");
      if (next->value != top())
        fail("task complete: next is not the task below", next->value, top());
    } else {
      fail("task_schedule: unexpected status", status, 0);
    }
  });
}

static ompt_get_task_info_t get_task_info;
static ompt_get_thread_data_t get_thread_data;
static ompt_get_parallel_info_t get_parallel_info;

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t* par,
                           ompt_data_t* task, const void* ra) {
  int flags = 0, thread_num = 0, size = 0;
  ompt_data_t *td = NULL, *pd = NULL, *asked_par = NULL;
  ompt_frame_t* frame = NULL;
  const int have = get_task_info(0, &flags, &td, &frame, &pd, &thread_num);
  const int have_par = get_parallel_info(0, &asked_par, &size);
  ompt_data_t* thread = get_thread_data();
  LOCKED({
    need_thread("sync_region before thread_begin");
    if (task->value != top()) fail("sync_region: not the current task", task->value, top());
    /* (libomp's implicit barriers and taskgroups answer for another task:
     * the inquiries are checked at taskwaits and barrier constructs.) */
    if (kind == ompt_sync_region_taskwait || kind == ompt_sync_region_barrier_explicit) {
      if (have != 2 || td != task) fail("ompt_get_task_info(0) is not the current task", kind, 0);
      if (have_par != 2 || asked_par != par) fail("ompt_get_parallel_info(0) differs", kind, 0);
    }
    if (!thread || thread->value != me.id) fail("ompt_get_thread_data differs", 0, 0);
    if (ep == ompt_scope_begin) {
      if (me.sync_depth < MAX_DEPTH) me.sync[me.sync_depth++] = (int)kind;
      if (kind == ompt_sync_region_taskwait)
        n_taskwaits++;
      else if (kind == ompt_sync_region_taskgroup)
        n_taskgroups++;
      else
        n_barriers++;
    } else {
      if (!me.sync_depth || me.sync[me.sync_depth - 1] != (int)kind)
        fail("sync_region end: not the innermost", kind, 0);
      if (me.sync_depth) me.sync_depth--;
    }
  });
}
static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t* par,
                                ompt_data_t* task, const void* ra) {
  LOCKED({
    if (!me.sync_depth || me.sync[me.sync_depth - 1] != (int)kind)
      fail("sync_region_wait outside its sync_region", kind, 0);
  });
}

/* Per wait identifier: acquisitions not yet released. (Not "one holder at a
 * time": a runtime may report a release after the next thread's acquire.) */
static struct {
  uint64_t id;
  int count;
} held[256];
static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t id, const void* ra) {}
static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t id, const void* ra) {
  LOCKED({
    int slot = -1;
    for (int i = 0; i < 256 && slot < 0; ++i)
      if (held[i].id == id) slot = i;
    for (int i = 0; i < 256 && slot < 0; ++i)
      if (!held[i].count) slot = i;
    if (slot < 0)
      fail("too many mutexes", id, 0);
    else
      held[slot].id = id, held[slot].count++;
    n_mutexes++;
  });
}
static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t id, const void* ra) {
  LOCKED({
    int found = 0;
    for (int i = 0; i < 256 && !found; ++i)
      if (held[i].id == id && held[i].count > 0) held[i].count--, found = 1;
    if (!found) fail("mutex released but not acquired", id, me.id);
  });
}
static void on_masked(ompt_scope_endpoint_t ep, ompt_data_t* par, ompt_data_t* task,
                      const void* ra) {
  LOCKED(if (ep == ompt_scope_begin) n_masked++);
}
static void on_work(ompt_work_t kind, ompt_scope_endpoint_t ep, ompt_data_t* par, ompt_data_t* task,
                    uint64_t count, const void* ra) {
  LOCKED({
    if (task->value != top()) fail("work: not the current task", task->value, top());
    if (ep == ompt_scope_begin) {
      n_work++;
      if (me.work_depth < MAX_DEPTH) me.work[me.work_depth++] = (int)kind;
    } else {
      if (!me.work_depth || me.work[me.work_depth - 1] != (int)kind)
        fail("work end: not the innermost construct", kind, 0);
      if (me.work_depth) me.work_depth--;
    }
  });
}

/* "key=value ..." from OMPT_CHECK_EXPECT against the counts. */
static void check_expected(void) {
  const char* e = getenv("OMPT_CHECK_EXPECT");
  if (!e) return;
  const struct {
    const char* key;
    int value;
  } counts[] = {{"parallels", n_parallels},
                {"tasks", n_tasks},
                {"deps", n_deps},
                {"taskwaits", n_taskwaits},
                {"taskgroups", n_taskgroups},
                {"masked", n_masked},
                {"work", n_work}};
  char key[32];
  int value, used;
  while (sscanf(e, " %31[a-z]=%d%n", key, &value, &used) == 2) {
    int known = 0;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i)
      if (!strcmp(key, counts[i].key)) {
        known = 1;
        if (counts[i].value != value) fail(key, (uint64_t)counts[i].value, (uint64_t)value);
      }
    if (!known) fail("OMPT_CHECK_EXPECT: unknown key", 0, 0);
    e += used;
  }
}

static void finalize(ompt_data_t* data) {
  pthread_mutex_lock(&mu);
  for (uint64_t t = 1; t < next_id; ++t) {
    if (tasks[t].created && !tasks[t].completed && tasks[t].parent)
      fail("a task never completed", t, 0);
    if (regions[t].begun && !regions[t].ended) fail("a region never ended", t, 0);
  }
  for (int i = 0; i < 256; ++i)
    if (held[i].count) fail("a mutex never released", held[i].id, 0);
  check_expected();
  fflush(stdout);
  if (failure[0]) {
    printf("ompt_check: FAIL %s\n", failure);
    fflush(stdout);
    _exit(1);
  }
  printf(
      "ompt_check: OK parallels=%d implicit=%d tasks=%d deps=%d taskwaits=%d taskgroups=%d "
      "masked=%d work=%d (threads=%d barriers=%d mutexes=%d undeferred=%d)\n",
      n_parallels, n_implicit, n_tasks, n_deps, n_taskwaits, n_taskgroups, n_masked, n_work,
      n_threads, n_barriers, n_mutexes, n_undeferred);
  fflush(stdout);
  pthread_mutex_unlock(&mu);
}

#define REGISTER(event, fn)                                                              \
  do {                                                                                   \
    int r = set_callback(ompt_callback_##event, (ompt_callback_t)(fn));                  \
    if (r == ompt_set_never || r == ompt_set_error) fail("not reported: " #event, r, 0); \
  } while (0)

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t* data) {
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
  get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
  if (!set_callback || !get_task_info || !get_thread_data || !get_parallel_info) {
    printf("ompt_check: FAIL an entry point is missing\n");
    _exit(1);
  }
  REGISTER(thread_begin, on_thread_begin);
  REGISTER(thread_end, on_thread_end);
  REGISTER(parallel_begin, on_parallel_begin);
  REGISTER(parallel_end, on_parallel_end);
  REGISTER(implicit_task, on_implicit_task);
  REGISTER(task_create, on_task_create);
  REGISTER(task_schedule, on_task_schedule);
  REGISTER(dependences, on_dependences);
  REGISTER(sync_region, on_sync_region);
  REGISTER(sync_region_wait, on_sync_region_wait);
  REGISTER(mutex_acquire, on_mutex_acquire);
  REGISTER(mutex_acquired, on_mutex_acquired);
  REGISTER(mutex_released, on_mutex_released);
  REGISTER(masked, on_masked);
  REGISTER(work, on_work);
  return 1;
}

ompt_start_tool_result_t* ompt_start_tool(unsigned int version, const char* runtime) {
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
