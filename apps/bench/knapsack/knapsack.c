/* A 0/1 knapsack solved by branch and bound with OpenMP tasks: the shape of
 * a search code whose running time depends on the order tasks run in. Each
 * node spawns "without item i" then "with item i" as untied tasks (deferred
 * only above a cutoff depth) and waits for both; the best value found so far
 * is shared and read without a lock, so a good solution found early prunes
 * most of the tree (Dantzig's fractional bound; Martello and Toth,
 * "Knapsack Problems", ch. 2).
 *
 *   knapsack [items] [cutoff] [seed]
 *
 * prints one line: best value, nodes explored, seconds, threads. The best
 * value is checked against dynamic programming; exit 1 when they differ.
 * Built with any OpenMP compiler; run it on libjoule-omp with LD_PRELOAD. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 64
#define MAX_THREADS 1024

typedef struct {
  int weight;
  int value;
} Item;

static Item items[MAX_ITEMS];
static int n_items;
static int capacity;
static int cutoff;
static int best; /* shared bound: read racily, raised with a CAS */

/* Nodes per OS thread, one cache line each: the count is the measurement.
 * Keyed by thread, not by omp_get_thread_num(): a runtime may run a team's
 * tasks on threads outside the team (its id is then shared). */
static struct {
  long n;
  char pad[56];
} nodes[MAX_THREADS];
static int slots_used;
static _Thread_local long* my_nodes;

static long* node_counter(void) {
  if (!my_nodes) {
    const int slot = __atomic_fetch_add(&slots_used, 1, __ATOMIC_RELAXED);
    my_nodes = &nodes[slot % MAX_THREADS].n;
  }
  return my_nodes;
}

static unsigned rng_state;
static int rng(int lo, int hi) {
  rng_state = rng_state * 1103515245u + 12345u;
  return lo + (int)((rng_state >> 8) % (unsigned)(hi - lo + 1));
}

static int by_density(const void* a, const void* b) {
  const Item* x = a;
  const Item* y = b;
  /* x before y when x->value / x->weight is larger */
  const long lhs = (long)y->value * x->weight;
  const long rhs = (long)x->value * y->weight;
  return lhs < rhs ? -1 : lhs > rhs;
}

/* Correlated instance (value = weight + constant): hard for bounding, as
 * in Pisinger's "Where are the hard knapsack problems?". */
static void make_instance(int n, unsigned seed) {
  long total = 0;
  rng_state = seed;
  n_items = n;
  for (int i = 0; i < n; ++i) {
    items[i].weight = rng(10, 1000);
    items[i].value = items[i].weight + 100;
    total += items[i].weight;
  }
  qsort(items, (size_t)n, sizeof(Item), by_density);
  capacity = (int)(total / 2);
}

/* Value + the fractional greedy fill of what capacity is left. */
static double upper_bound(int i, int weight, int value) {
  double bound = value;
  int room = capacity - weight;
  for (; i < n_items && items[i].weight <= room; ++i) {
    room -= items[i].weight;
    bound += items[i].value;
  }
  if (i < n_items) bound += (double)items[i].value * room / items[i].weight;
  return bound;
}

static void raise_best(int value) {
  int seen = __atomic_load_n(&best, __ATOMIC_RELAXED);
  while (value > seen &&
         !__atomic_compare_exchange_n(&best, &seen, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

static void search(int i, int weight, int value, int depth) {
  ++*node_counter();
  if (value > __atomic_load_n(&best, __ATOMIC_RELAXED)) raise_best(value);
  if (i == n_items) return;
  if (upper_bound(i, weight, value) <= __atomic_load_n(&best, __ATOMIC_RELAXED)) return;
#pragma omp task untied if (depth < cutoff)
  search(i + 1, weight, value, depth + 1);
  if (weight + items[i].weight <= capacity) {
#pragma omp task untied if (depth < cutoff)
    search(i + 1, weight + items[i].weight, value + items[i].value, depth + 1);
  }
#pragma omp taskwait
}

static int solve_dp(void) {
  int* table = calloc((size_t)capacity + 1, sizeof(int));
  for (int i = 0; i < n_items; ++i)
    for (int c = capacity; c >= items[i].weight; --c) {
      const int with = table[c - items[i].weight] + items[i].value;
      if (with > table[c]) table[c] = with;
    }
  const int answer = table[capacity];
  free(table);
  return answer;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 34;
  cutoff = argc > 2 ? atoi(argv[2]) : 12;
  const unsigned seed = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 1u;
  if (n < 1 || n > MAX_ITEMS || cutoff < 0) {
    fprintf(stderr, "usage: knapsack [items 1..%d] [cutoff >= 0] [seed]\n", MAX_ITEMS);
    return 2;
  }
  make_instance(n, seed);
  int threads = 1;
  /* Start the runtime and its threads before the clock: the figure is the
   * search, not the start-up. */
#pragma omp parallel
  {}
  const double start = omp_get_wtime();
#pragma omp parallel
#pragma omp single
  {
    threads = omp_get_num_threads();
    search(0, 0, 0, 0);
  }
  const double seconds = omp_get_wtime() - start;
  long explored = 0;
  for (int t = 0; t < MAX_THREADS; ++t) explored += nodes[t].n;
  const int expected = solve_dp();
  printf("best %d nodes %ld seconds %.4f threads %d\n", best, explored, seconds, threads);
  if (best != expected) {
    fprintf(stderr, "knapsack: best %d differs from dynamic programming's %d\n", best, expected);
    return 1;
  }
  return 0;
}
