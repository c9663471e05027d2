/* User-declared reductions (declare reduction) through the task-reduction
 * ABI: a struct with an initializer(omp_priv = ...) clause, one without
 * (its private copies start zeroed, OpenMP 5.2 section 5.5.11), and arrays
 * of structs (whole and as array sections), in taskloop reduction,
 * taskgroup task_reduction with in_reduction tasks, and parallel / for
 * reduction(task, ...). The printed values (integer sums, a min/max record
 * whose ties go to the smaller index) do not depend on the order of the
 * combinations, so they must match libgomp's (compare_runs.sh). */
#include <omp.h>
#include <stdio.h>

#include "check.h"

enum { N = 300 };

/* sum, count, and the smallest value with its index (ties: the smaller index) */
struct Stat {
  long sum, count;
  int minv, mini;
};

static void stat_add(struct Stat *s, int v, int i) {
  s->sum += v;
  s->count += 1;
  if (v < s->minv || (v == s->minv && i < s->mini)) {
    s->minv = v;
    s->mini = i;
  }
}

static void stat_merge(struct Stat *out, const struct Stat *in) {
  out->sum += in->sum;
  out->count += in->count;
  if (in->minv < out->minv || (in->minv == out->minv && in->mini < out->mini)) {
    out->minv = in->minv;
    out->mini = in->mini;
  }
}

#pragma omp declare reduction(stat                             \
                              : struct Stat                    \
                              : stat_merge(&omp_out, &omp_in)) \
    initializer(omp_priv = (struct Stat){0, 0, 1 << 30, 1 << 30})

/* No initializer: a private copy starts as zero (a static variable would). */
struct Pair {
  long a, b;
};
#pragma omp declare reduction(pair : struct Pair : omp_out.a += omp_in.a, omp_out.b += omp_in.b)

/* An initializer that calls a function with omp_priv's address. */
struct Maxrec {
  int v, i;
};
static void maxrec_init(struct Maxrec *m) {
  m->v = -1;
  m->i = -1;
}
static void maxrec_merge(struct Maxrec *out, const struct Maxrec *in) {
  if (in->v > out->v || (in->v == out->v && in->i < out->i)) *out = *in;
}
#pragma omp declare reduction(maxrec                             \
                              : struct Maxrec                    \
                              : maxrec_merge(&omp_out, &omp_in)) \
    initializer(maxrec_init(&omp_priv))

static int value(int i) { return (i * 37) % 101 - 50; } /* repeats: ties */

static void print_stat(const char *what, struct Stat s) {
  printf("%s: sum %ld count %ld min %d at %d\n", what, s.sum, s.count, s.minv, s.mini);
}

static struct Stat expected(int n) {
  struct Stat s = {0, 0, 1 << 30, 1 << 30};
  for (int i = 0; i < n; ++i) stat_add(&s, value(i), i);
  return s;
}

static int same(struct Stat a, struct Stat b) {
  return a.sum == b.sum && a.count == b.count && a.minv == b.minv && a.mini == b.mini;
}

static void taskloops(void) {
  struct Stat s = {5, 1, 1 << 30, 1 << 30}; /* the original takes part */
  struct Pair p = {1, 2};
  struct Maxrec m = {-100, 0};
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop reduction(stat : s) grainsize(7)
    for (int i = 0; i < N; ++i) stat_add(&s, value(i), i);
#pragma omp taskloop reduction(pair : p) reduction(maxrec : m) num_tasks(11)
    for (int i = 0; i < N; ++i) {
      p.a += i;
      p.b += 2 * i;
      struct Maxrec one = {value(i), i};
      maxrec_merge(&m, &one);
    }
  }
  struct Stat e = expected(N);
  e.sum += 5;
  e.count += 1;
  CHECK(same(s, e));
  CHECK(p.a == 1 + (long)N * (N - 1) / 2 && p.b == 2 + (long)N * (N - 1));
  CHECK(m.v == 50);
  print_stat("taskloop stat", s);
  printf("taskloop pair: %ld %ld maxrec: %d at %d\n", p.a, p.b, m.v, m.i);
}

static void taskgroups(void) {
  struct Stat s = {0, 0, 1 << 30, 1 << 30};
  struct Pair p = {0, 0};
  struct Stat arr[4];
  struct Pair sec[6] = {{0, 0}};
  for (int k = 0; k < 4; ++k) arr[k] = (struct Stat){0, 0, 1 << 30, 1 << 30};
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(stat : s, arr) task_reduction(pair : p, sec [1:4])
  for (int i = 0; i < N; ++i) {
#pragma omp task in_reduction(stat : s, arr) in_reduction(pair : p, sec [1:4])
    {
      stat_add(&s, value(i), i);
      stat_add(&arr[i % 4], value(i), i);
      p.a += 1;
      p.b += i % 3;
      sec[1 + i % 4].a += i;
      sec[1 + i % 4].b += 1;
    }
  }
  CHECK(same(s, expected(N)));
  for (int k = 0; k < 4; ++k) {
    struct Stat e = {0, 0, 1 << 30, 1 << 30};
    for (int i = k; i < N; i += 4) stat_add(&e, value(i), i);
    CHECK(same(arr[k], e));
    CHECK(sec[1 + k].b == N / 4);
  }
  CHECK(p.a == N && p.b == N / 3 * 3 && sec[0].a == 0 && sec[5].a == 0);
  print_stat("taskgroup stat", s);
  for (int k = 0; k < 4; ++k) print_stat("taskgroup arr", arr[k]);
  printf("taskgroup pair: %ld %ld sections:", p.a, p.b);
  for (int k = 0; k < 6; ++k) printf(" %ld/%ld", sec[k].a, sec[k].b);
  printf("\n");
}

static void team_reductions(void) {
  struct Stat s = {0, 0, 1 << 30, 1 << 30}, w = {0, 0, 1 << 30, 1 << 30};
  struct Pair p = {0, 0};
  int nt = 0;
#pragma omp parallel reduction(task, stat : s) reduction(task, pair : p)
  {
#pragma omp master
    nt = omp_get_num_threads();
    p.a += 1; /* the implicit task's own copy */
    for (int i = omp_get_thread_num(); i < N; i += omp_get_num_threads()) {
#pragma omp task in_reduction(stat : s) in_reduction(pair : p)
      {
        stat_add(&s, value(i), i);
        p.b += i;
      }
    }
  }
#pragma omp parallel
#pragma omp for reduction(task, stat : w) schedule(dynamic, 5)
  for (int i = 0; i < N; ++i) {
#pragma omp task in_reduction(stat : w)
    stat_add(&w, value(i), i);
  }
  CHECK(same(s, expected(N)) && same(w, expected(N)));
  CHECK(nt > 0 && p.a == nt && p.b == (long)N * (N - 1) / 2);
  print_stat("parallel stat", s);
  print_stat("for stat", w);
  printf("parallel pair: per thread %ld, %ld\n", nt ? p.a / nt : -1, p.b);
}

/* omp_orig is the original list item (OpenMP 5.2 section 5.5.11), also for
 * an element of an array section and for an in_reduction task nested in
 * another (GCC passes the outer task's copy; GOMP_task_reduction_remap
 * hands back the original as well). */
static struct Pair g_orig_x, g_orig_t[4];
static int g_orig_wrong = 0;

static void orig_init(struct Pair *priv, const struct Pair *orig) {
  priv->a = priv->b = 0;
  if (orig != &g_orig_x && (orig < &g_orig_t[1] || orig >= &g_orig_t[3])) {
#pragma omp atomic
    ++g_orig_wrong;
  }
}
#pragma omp declare reduction(origpair                                        \
                              : struct Pair                                   \
                              : omp_out.a += omp_in.a, omp_out.b += omp_in.b) \
    initializer(orig_init(&omp_priv, &omp_orig))

static void original_items(void) {
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(origpair : g_orig_x, g_orig_t [1:2])
  for (int i = 0; i < N; ++i) {
#pragma omp task in_reduction(origpair : g_orig_x, g_orig_t [1:2])
    {
      g_orig_x.a += i;
      g_orig_t[1 + i % 2].b += 1;
#pragma omp task in_reduction(origpair : g_orig_x, g_orig_t [1:2])
      g_orig_t[2].a += 1;
    }
  }
  CHECK(g_orig_wrong == 0 && g_orig_x.a == (long)N * (N - 1) / 2 && g_orig_t[2].a == N);
  printf("omp_orig: %s; %ld %ld %ld %ld\n", g_orig_wrong ? "not the original" : "the original",
         g_orig_x.a, g_orig_t[1].b, g_orig_t[2].b, g_orig_t[2].a);
}

int main(void) {
  taskloops();
  taskgroups();
  team_reductions();
  original_items();
  return finish("task_udr");
}
