/* The Nanos6 user API that public OmpSs-2 programs call, answered by joule.
 * joulecc puts <include>/joule/nanos6 first on the include path, so
 * `#include <nanos6.h>` finds this file (docs/porting-ompss-semantics.md, "The Nanos6
 * API"). Semantics follow the Nanos6 API documentation; what differs is
 * said at each function. C and C++. */
#ifndef JOULE_NANOS6_H
#define JOULE_NANOS6_H

#include <stddef.h>

#include "joule/types.h"
#include "nanos6/cluster.h" /* nanos6_dmalloc, nanos6_lmalloc, the node queries */

#ifdef __cplusplus
extern "C" {
#endif

/* CPUs (joule's workers) the program runs on. */
JOULE_EXPORT unsigned int nanos6_get_num_cpus(void);
/* Nanos++'s name for the same count. */
JOULE_EXPORT unsigned int nanos_get_num_cpus(void);
/* Every worker, guests on borrowed CPUs included. */
JOULE_EXPORT unsigned int nanos6_get_total_num_cpus(void);
/* The calling worker's index in [0, nanos6_get_num_cpus()); 0 on a thread
 * that is not a worker. */
JOULE_EXPORT long nanos6_get_current_virtual_cpu(void);
/* The operating system's number of the CPU the caller runs on now. */
JOULE_EXPORT long nanos6_get_current_system_cpu(void);

/* ---- blocking ----
 * A task blocks until another thread (a task, a polling service, any
 * thread) unblocks it. The unblock may come first: the block then returns
 * at once. While blocked the task's worker runs other ready tasks on the
 * same stack and the polling services, so a blocked task resumes once the
 * tasks it picked up meanwhile have returned (docs/porting-ompss.md). */
JOULE_EXPORT void *nanos6_get_current_blocking_context(void);
JOULE_EXPORT void nanos6_block_current_task(void *blocking_context);
JOULE_EXPORT void nanos6_unblock_task(void *blocking_context);

/* ---- external events: the task completes (releases its dependencies)
 * once its body has returned and its event counter is back to zero. ---- */
JOULE_EXPORT void *nanos6_get_current_event_counter(void);
JOULE_EXPORT void nanos6_increase_current_task_event_counter(void *event_counter,
                                                             unsigned int increment);
JOULE_EXPORT void nanos6_decrease_task_event_counter(void *event_counter, unsigned int decrement);

/* ---- polling services ----
 * service(data) is called by idle workers, by waiting threads and at task
 * boundaries until it returns non-zero or is unregistered. One thread runs
 * the services at a time. Unregistering waits for a running poll to end
 * (unless called from a service). */
typedef int (*nanos6_polling_service_t)(void *service_data);
JOULE_EXPORT void nanos6_register_polling_service(const char *service_name,
                                                  nanos6_polling_service_t service,
                                                  void *service_data);
JOULE_EXPORT void nanos6_unregister_polling_service(const char *service_name,
                                                    nanos6_polling_service_t service,
                                                    void *service_data);

/* ---- CUDA tasks (docs/offload.md, "CUDA GPUs") ----
 * The stream of the device(cuda) task running on this thread (a
 * cudaStream_t, which is a struct CUstream_st *), for cuBLAS and kernel
 * launches inside the task; NULL outside one. Also <nanos6/cuda_device.h>. */
struct CUstream_st;
JOULE_EXPORT struct CUstream_st *nanos6_get_current_cuda_stream(void);

#ifdef __cplusplus
}
#endif

#endif /* JOULE_NANOS6_H */
