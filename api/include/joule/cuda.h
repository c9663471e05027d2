/* CUDA tasks from C (docs/offload.md, "CUDA GPUs"): what a device(cuda)
 * task body, running on a host worker, needs to launch its kernels: the
 * task's stream (a CUstream, which is a cudaStream_t) and the GPU's copy of
 * a host address in one of its regions. Both are null outside a CUDA task
 * body. joulecc's device(cuda) task functions and nanos6_get_current_cuda_stream
 * use these. */
#ifndef JOULE_CUDA_H
#define JOULE_CUDA_H

#include <joule/joule.h>

#ifdef __cplusplus
extern "C" {
#endif

struct CUstream_st;

/* The stream of the CUDA task body running on this thread. */
JOULE_EXPORT struct CUstream_st *joule_cuda_current_stream(void);
/* The GPU's copy of host, which must lie in one of the task's regions. */
JOULE_EXPORT void *joule_cuda_current_map(const void *host);
/* The GPU the current CUDA task runs on (-1 outside one). */
JOULE_EXPORT int joule_cuda_current_device(void);
/* GPUs joule can use (0: none, or JOULE_CUDA=off, or a build without CUDA). */
JOULE_EXPORT int joule_cuda_device_count(void);

#ifdef __cplusplus
}
#endif
#endif
