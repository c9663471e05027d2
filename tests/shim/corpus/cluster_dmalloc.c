/* OmpSs-2@Cluster style: the arrays are distributed memory from
   nanos6_dmalloc (one equally partitioned, one in blocks of the given
   dimensions) touched only by subtasks, the result local memory from
   nanos6_lmalloc, the block count scaled by nanos6_get_num_cluster_nodes().
   On one node (joule) every allocation is the process's own memory. The
   program uses the Nanos6 API without including <nanos6.h>, as
   `mcc --ompss-2` included it; the corpus test builds it with Mercurium's
   and the OmpSs-2 Clang's flags on the line (corpus_test.cpp). */
/* The pragmas keep OmpSs spacing. */
// clang-format off
#include <stdio.h>
#include <stdlib.h>

#ifdef _OMPSS_2
#if !defined(JOULE_CORPUS_FLAGS) || !defined(_OMPSS_2_NANOS6)
#error "built without the corpus test's flags (-fompss-2=libnanos6, --Wnp,-D...)"
#endif
#else /* the sequential build: plain memory, one node */
#define nanos6_dmalloc(size, policy, ndims, dims) malloc(size)
#define nanos6_dfree(ptr, size) free(ptr)
#define nanos6_lmalloc(size) malloc(size)
#define nanos6_lfree(ptr, size) free(ptr)
#define nanos6_get_num_cluster_nodes() 1
#define nanos6_get_cluster_node_id() 0
#define nanos6_in_cluster_mode() 0
#endif

#define N 65536

int main(void) {
  const int nodes = nanos6_get_num_cluster_nodes();
  const int blocks = 16 * nodes, bs = N / blocks;
  size_t dims[1] = {(size_t)bs};
  double *x = (double *)nanos6_dmalloc(N * sizeof(double), nanos6_equpart_distribution, 0, NULL);
  double *y = (double *)nanos6_dmalloc(N * sizeof(double), nanos6_block_distribution, 1, dims);
  double *sums = (double *)nanos6_lmalloc(blocks * sizeof(double));
  if (!x || !y || !sums) return 1;
  for (int b = 0; b < blocks; b++) {
#pragma oss task out(x[b * bs;bs], y[b * bs;bs])
    for (int i = b * bs; i < (b + 1) * bs; i++) {
      x[i] = (double)(i % 97) / 8.0;
      y[i] = (double)(i % 13);
    }
  }
  for (int step = 0; step < 4; step++)
    for (int b = 0; b < blocks; b++) {
#pragma oss task in(x[b * bs;bs]) inout(y[b * bs;bs])
      for (int i = b * bs; i < (b + 1) * bs; i++) y[i] = 0.5 * y[i] + x[i];
    }
  for (int b = 0; b < blocks; b++) {
#pragma oss task in(y[b * bs;bs]) out(sums[b])
    {
      double s = 0;
      for (int i = b * bs; i < (b + 1) * bs; i++) s += y[i];
      sums[b] = s;
    }
  }
#pragma oss taskwait
  double total = 0;
  for (int b = 0; b < blocks; b++) total += sums[b];
  printf("node %d of %d, cluster mode %d: total %.6f first block %.6f\n",
         nanos6_get_cluster_node_id(), nodes, nanos6_in_cluster_mode(), total, sums[0]);
  nanos6_lfree(sums, blocks * sizeof(double));
  nanos6_dfree(y, N * sizeof(double));
  nanos6_dfree(x, N * sizeof(double));
  return 0;
}
