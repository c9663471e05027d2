/* joule C ABI: placing data on NUMA nodes (docs/user-guide-semantics.md, "Placing data
 * on NUMA nodes").
 *
 * Memory from joule_alloc is whole pages, zero-filled, placed as asked:
 *   JOULE_PLACE_LOCAL        the kernel's default: each page on the node of
 *                            the thread that first writes it;
 *   JOULE_PLACE_INTERLEAVED  page by page over every NUMA node;
 *   JOULE_PLACE_NODE         on node `node` (0 .. joule_numa_node_count()-1);
 *   JOULE_PLACE_BY_KEY       cut into chunks of `chunk_bytes` (0: one chunk);
 *                            chunk i is first touched by the worker that
 *                            keyed tasks with affinity key `key + i` go to,
 *                            so it lands on that worker's node. `init`, when
 *                            given, does the touching (it must write every
 *                            page of its chunk); else one zero per page.
 * Tasks whose first dependency lies in placed data are queued on a worker of
 * that data's node (a soft preference: thieves of the same node look first).
 * A call that fails returns NULL or an error code, with the reason in
 * joule_last_error(). The runtime starts if it is not running. */
#ifndef JOULE_MEMORY_H
#define JOULE_MEMORY_H

#include <joule/types.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum joule_place_kind {
  JOULE_PLACE_LOCAL = 0,
  JOULE_PLACE_INTERLEAVED = 1,
  JOULE_PLACE_NODE = 2,
  JOULE_PLACE_BY_KEY = 3
} joule_place_kind_t;

typedef struct joule_placement {
  int kind;           /* joule_place_kind_t */
  int node;           /* JOULE_PLACE_NODE */
  uint64_t key;       /* JOULE_PLACE_BY_KEY: the first chunk's affinity key */
  size_t chunk_bytes; /* JOULE_PLACE_BY_KEY: bytes per key; 0: all under `key` */
  /* JOULE_PLACE_BY_KEY: touches one chunk, on its key's worker (optional). */
  void (*init)(void *chunk, size_t bytes, uint64_t key, void *arg);
  void *init_arg;
} joule_placement_t;

/* where NULL: JOULE_PLACE_LOCAL. NULL on error (bytes 0, or more than
 * PTRDIFF_MAX (no object is larger; rounding it up to pages would wrap):
 * JOULE_ERR_INVALID; a node outside 0..count-1: JOULE_ERR_INVALID naming the
 * valid range; memory the system cannot give: JOULE_ERR_NOMEM). */
JOULE_EXPORT void *joule_alloc(size_t bytes, const joule_placement_t *where);
/* Memory from joule_alloc only (JOULE_ERR_INVALID otherwise); NULL is fine. */
JOULE_EXPORT int joule_free(void *p);
/* NUMA nodes of the machine the runtime runs on (JOULE_WORKER_TOPOLOGY's, if set);
 * -1 when the runtime could not start (the reason in joule_last_error()). */
JOULE_EXPORT int joule_numa_node_count(void);
/* The node of the worker that keyed tasks of `key` go to now (-1 as above). */
JOULE_EXPORT int joule_node_of_key(uint64_t key);
/* The node of the page holding p: the node joule placed it on (the one it
 * was meant for, on a JOULE_WORKER_TOPOLOGY machine), else where the kernel put it;
 * -1 when neither is known (a page nobody touched yet). */
JOULE_EXPORT int joule_node_of_address(const void *p);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_MEMORY_H */
