// The place and affinity-display API as gfortran calls it (omp_fortran.cpp
// has the rest): arguments by reference, _8_ twins for integer(8), and
// character arguments as a pointer plus a hidden length (size_t) at the end
// of the list. Fortran strings are blank-padded: a format's trailing blanks
// are dropped, and a buffer is filled with blanks after the text.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "joule/omp/omp.h"

namespace {

std::string from_fortran(const char* s, size_t len) {
  while (len > 0 && s[len - 1] == ' ') --len;
  return std::string(s, len);
}

// The text into a Fortran buffer of len characters: truncated or padded
// with blanks. Returns the text's length.
int to_fortran(const std::string& text, char* buf, size_t len) {
  const size_t n = std::min(text.size(), len);
  std::memcpy(buf, text.data(), n);
  std::memset(buf + n, ' ', len - n);
  return int(text.size());
}

template <class I>
void place_ids(I place, I* ids) {
  std::vector<int> v(std::size_t(std::max(omp_get_place_num_procs(int(place)), 0)));
  omp_get_place_proc_ids(int(place), v.data());
  std::copy(v.begin(), v.end(), ids);
}

template <class I>
void partition_places(I* nums) {
  std::vector<int> v(std::size_t(std::max(omp_get_partition_num_places(), 0)));
  omp_get_partition_place_nums(v.data());
  std::copy(v.begin(), v.end(), nums);
}

std::string capture(const std::string& format) {
  std::string line(omp_capture_affinity(nullptr, 0, format.c_str()), '\0');
  omp_capture_affinity(line.data(), line.size() + 1, format.c_str());
  return line;
}

}  // namespace

extern "C" {

JOULE_EXPORT int omp_get_num_places_(void) { return omp_get_num_places(); }
JOULE_EXPORT int omp_get_place_num_(void) { return omp_get_place_num(); }
JOULE_EXPORT int omp_get_partition_num_places_(void) { return omp_get_partition_num_places(); }
JOULE_EXPORT int omp_get_place_num_procs_(const std::int32_t* place) {
  return omp_get_place_num_procs(*place);
}
JOULE_EXPORT int omp_get_place_num_procs_8_(const std::int64_t* place) {
  return omp_get_place_num_procs(int(*place));
}
JOULE_EXPORT void omp_get_place_proc_ids_(const std::int32_t* place, std::int32_t* ids) {
  place_ids(*place, ids);
}
JOULE_EXPORT void omp_get_place_proc_ids_8_(const std::int64_t* place, std::int64_t* ids) {
  place_ids(*place, ids);
}
JOULE_EXPORT void omp_get_partition_place_nums_(std::int32_t* nums) { partition_places(nums); }
JOULE_EXPORT void omp_get_partition_place_nums_8_(std::int64_t* nums) { partition_places(nums); }

JOULE_EXPORT void omp_set_affinity_format_(const char* format, size_t len) {
  omp_set_affinity_format(from_fortran(format, len).c_str());
}

JOULE_EXPORT int omp_get_affinity_format_(char* buffer, size_t len) {
  std::string f(omp_get_affinity_format(nullptr, 0), '\0');
  omp_get_affinity_format(f.data(), f.size() + 1);
  return to_fortran(f, buffer, len);
}

JOULE_EXPORT void omp_display_affinity_(const char* format, size_t len) {
  omp_display_affinity(from_fortran(format, len).c_str());
}

JOULE_EXPORT int omp_capture_affinity_(char* buffer, const char* format, size_t buffer_len,
                                       size_t format_len) {
  return to_fortran(capture(from_fortran(format, format_len)), buffer, buffer_len);
}

}  // extern "C"
