/* <nanos6/cluster.h>: the OmpSs-2@Cluster API (also declared through
 * <nanos6.h>, as in Nanos6). joule runs a program on one node: it is that
 * node's only process, node 0 of 1, never in cluster mode, and local and
 * distributed memory are both the process's own memory (malloc/free). A
 * program written for clusters therefore runs as it does under Nanos6
 * without NANOS6_COMMUNICATION set (docs/porting-ompss-semantics.md, "The
 * Nanos6 API"). */
#ifndef JOULE_NANOS6_CLUSTER_H
#define JOULE_NANOS6_CLUSTER_H

#include <stddef.h>

#include "joule/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How nanos6_dmalloc spreads an allocation over the nodes: on one node all
 * of it is local whatever the policy. A value outside this list stops the
 * program (joule: nanos6_dmalloc: unknown distribution policy). */
typedef enum {
  nanos6_equpart_distribution = 0, /* equal parts on every node */
  nanos6_block_distribution,       /* blocks of the given dimensions */
  nanos6_cyclic_distribution       /* blocks dealt round robin */
} nanos6_data_distribution_t;

/* 0: joule never runs in cluster mode. */
JOULE_EXPORT int nanos6_in_cluster_mode(void);
/* 1: the one node is the master. */
JOULE_EXPORT int nanos6_is_master_node(void);
/* 0, the index of the one node. */
JOULE_EXPORT int nanos6_get_cluster_node_id(void);
/* 1. */
JOULE_EXPORT int nanos6_get_num_cluster_nodes(void);

/* Distributed memory: malloc(size) (NULL when that fails); the dimensions
 * are not read. Free it with nanos6_dfree. */
JOULE_EXPORT void *nanos6_dmalloc(size_t size, nanos6_data_distribution_t policy,
                                  size_t num_dimensions, size_t *dimensions);
JOULE_EXPORT void nanos6_dfree(void *ptr, size_t size);
/* Local memory: malloc(size); free it with nanos6_lfree. */
JOULE_EXPORT void *nanos6_lmalloc(size_t size);
JOULE_EXPORT void nanos6_lfree(void *ptr, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_NANOS6_CLUSTER_H */
