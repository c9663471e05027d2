// The OmpSs-2@Cluster API (<joule/nanos6/nanos6/cluster.h>) on one node:
// joule's process is the only node, so the node queries are constants and
// local and distributed memory are the process's own.
#include <cstdio>
#include <cstdlib>

#include "joule/nanos6/nanos6.h"

extern "C" {

int nanos6_in_cluster_mode(void) { return 0; }
int nanos6_is_master_node(void) { return 1; }
int nanos6_get_cluster_node_id(void) { return 0; }
int nanos6_get_num_cluster_nodes(void) { return 1; }

// Every policy puts the whole allocation on the one node; a value that is no
// policy is the program's error, reported as Nanos6 reports it.
void* nanos6_dmalloc(size_t size, nanos6_data_distribution_t policy, size_t, size_t*) {
  if (policy != nanos6_equpart_distribution && policy != nanos6_block_distribution &&
      policy != nanos6_cyclic_distribution) {
    std::fprintf(stderr, "joule: nanos6_dmalloc: unknown distribution policy %d\n",
                 static_cast<int>(policy));
    std::abort();
  }
  return std::malloc(size);
}

void nanos6_dfree(void* ptr, size_t) { std::free(ptr); }
void* nanos6_lmalloc(size_t size) { return std::malloc(size); }
void nanos6_lfree(void* ptr, size_t) { std::free(ptr); }

}  // extern "C"
