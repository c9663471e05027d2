// The device memory routines (OpenMP 5.2 §18.8) on the host, the only
// device: memory is the process's (malloc), every host address is present,
// copies are plain copies. Another device number gets what libgomp gives
// for a device that does not exist: NULL, EINVAL, not present.
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "target.hpp"

using namespace joule::omp;

namespace {

// The bytes a row of `dims` dimensions (sizes[1..]) spans, or false on overflow.
bool row_bytes(std::size_t elem, int dims, const std::size_t* sizes, std::size_t* out) {
  std::size_t bytes = elem;
  for (int d = 1; d < dims; ++d)
    if (__builtin_mul_overflow(bytes, sizes[d], &bytes)) return false;
  *out = bytes;
  return true;
}

// The sub-volume of `dims` dimensions, the first one outermost.
bool copy_rect(char* dst, const char* src, std::size_t elem, int dims, const std::size_t* volume,
               const std::size_t* dst_off, const std::size_t* src_off, const std::size_t* dst_dims,
               const std::size_t* src_dims) {
  std::size_t dst_row = 0, src_row = 0, bytes = 0;
  if (!row_bytes(elem, dims, dst_dims, &dst_row) || !row_bytes(elem, dims, src_dims, &src_row))
    return false;
  if (dims == 1) {
    if (__builtin_mul_overflow(volume[0], elem, &bytes)) return false;
    if (bytes) std::memmove(dst + dst_off[0] * elem, src + src_off[0] * elem, bytes);
    return true;
  }
  for (std::size_t j = 0; j < volume[0]; ++j)
    if (!copy_rect(dst + (dst_off[0] + j) * dst_row, src + (src_off[0] + j) * src_row, elem,
                   dims - 1, volume + 1, dst_off + 1, src_off + 1, dst_dims + 1, src_dims + 1))
      return false;
  return true;
}

}  // namespace

extern "C" {

JOULE_EXPORT void* omp_target_alloc(std::size_t size, int device_num) {
  return usable_device(device_num, "omp_target_alloc") ? std::malloc(size) : nullptr;
}

JOULE_EXPORT void omp_target_free(void* ptr, int device_num) {
  if (ptr && usable_device(device_num, "omp_target_free")) std::free(ptr);
}

JOULE_EXPORT int omp_target_is_present(const void* ptr, int device_num) {
  return !ptr || usable_device(device_num, "omp_target_is_present");
}

JOULE_EXPORT int omp_target_memcpy(void* dst, const void* src, std::size_t length,
                                   std::size_t dst_offset, std::size_t src_offset,
                                   int dst_device_num, int src_device_num) {
  if (!usable_device(dst_device_num, "omp_target_memcpy") ||
      !usable_device(src_device_num, "omp_target_memcpy"))
    return EINVAL;
  if (length)
    std::memmove(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset,
                 length);
  return 0;
}

// Both pointers null: the query, which answers the most dimensions
// supported (any number: INT_MAX, as libgomp).
JOULE_EXPORT int omp_target_memcpy_rect(void* dst, const void* src, std::size_t element_size,
                                        int num_dims, const std::size_t* volume,
                                        const std::size_t* dst_offsets,
                                        const std::size_t* src_offsets,
                                        const std::size_t* dst_dimensions,
                                        const std::size_t* src_dimensions, int dst_device_num,
                                        int src_device_num) {
  if (!dst && !src) return INT_MAX;
  if (!usable_device(dst_device_num, "omp_target_memcpy_rect") ||
      !usable_device(src_device_num, "omp_target_memcpy_rect"))
    return EINVAL;
  if (!dst || !src || num_dims < 1) return EINVAL;
  return copy_rect(static_cast<char*>(dst), static_cast<const char*>(src), element_size, num_dims,
                   volume, dst_offsets, src_offsets, dst_dimensions, src_dimensions)
             ? 0
             : EINVAL;
}

// There is no device memory to associate a host address with.
JOULE_EXPORT int omp_target_associate_ptr(const void*, const void*, std::size_t, std::size_t,
                                          int device_num) {
  usable_device(device_num, "omp_target_associate_ptr");
  return EINVAL;
}

JOULE_EXPORT int omp_target_disassociate_ptr(const void*, int device_num) {
  usable_device(device_num, "omp_target_disassociate_ptr");
  return EINVAL;
}

}  // extern "C"
