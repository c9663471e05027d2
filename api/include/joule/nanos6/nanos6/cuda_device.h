/* <nanos6/cuda_device.h>: where Nanos6 programs find
 * nanos6_get_current_cuda_stream, which <nanos6.h> declares here. */
#ifndef JOULE_NANOS6_CUDA_DEVICE_H
#define JOULE_NANOS6_CUDA_DEVICE_H

#include "../nanos6.h"

#endif /* JOULE_NANOS6_CUDA_DEVICE_H */
