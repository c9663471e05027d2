/* Tree traversal with OpenMP locks (OmpSs-1): one task per subtree, a
   simple lock per histogram bucket and a nested lock for the totals. The
   sequential build uses the fallback macros real codes define. */
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#else
typedef int omp_lock_t;
typedef int omp_nest_lock_t;
#define omp_init_lock(l) ((void)(l))
#define omp_set_lock(l) ((void)(l))
#define omp_unset_lock(l) ((void)(l))
#define omp_destroy_lock(l) ((void)(l))
#define omp_init_nest_lock(l) ((void)(l))
#define omp_set_nest_lock(l) ((void)(l))
#define omp_unset_nest_lock(l) ((void)(l))
#define omp_destroy_nest_lock(l) ((void)(l))
#define omp_test_lock(l) ((void)(l), 1)
#define omp_test_nest_lock(l) ((void)(l), 2)
#endif

#define BUCKETS 8

typedef struct Node {
  int value;
  struct Node *left, *right;
} Node;

static omp_lock_t bucket_lock[BUCKETS];
static long bucket[BUCKETS];
static omp_nest_lock_t total_lock;
static long total, count;

static Node *build(int depth, unsigned *seed) {
  if (depth == 0) return NULL;
  Node *n = (Node *)malloc(sizeof(Node));
  *seed = *seed * 1103515245u + 12345u;
  n->value = (int)((*seed >> 8) % 1000);
  n->left = build(depth - 1, seed);
  n->right = build(depth - 1, seed);
  return n;
}

static void add_total(long v) {
  omp_set_nest_lock(&total_lock);
  total += v;
  if (omp_test_nest_lock(&total_lock) != 2) count = -1000000; /* nested: the same owner */
  count++;
  omp_unset_nest_lock(&total_lock);
  omp_unset_nest_lock(&total_lock);
}

static void visit(Node *n) {
  if (!n) return;
#pragma omp task firstprivate(n)
  visit(n->left);
#pragma omp task firstprivate(n)
  visit(n->right);
  int b = n->value % BUCKETS;
  if (b % 2) {
    while (!omp_test_lock(&bucket_lock[b])) {
    }
  } else {
    omp_set_lock(&bucket_lock[b]);
  }
  bucket[b] += n->value;
  omp_unset_lock(&bucket_lock[b]);
  add_total(n->value);
#pragma omp taskwait
}

static void release(Node *n) {
  if (!n) return;
  release(n->left);
  release(n->right);
  free(n);
}

int main(void) {
  unsigned seed = 7;
  Node *root = build(12, &seed);
  for (int i = 0; i < BUCKETS; i++) omp_init_lock(&bucket_lock[i]);
  omp_init_nest_lock(&total_lock);
  visit(root);
  for (int i = 0; i < BUCKETS; i++) {
    printf("bucket %d: %ld\n", i, bucket[i]);
    omp_destroy_lock(&bucket_lock[i]);
  }
  omp_destroy_nest_lock(&total_lock);
  printf("total %ld over %ld nodes\n", total, count);
  release(root);
  return 0;
}
