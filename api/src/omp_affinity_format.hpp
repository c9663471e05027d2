// OMP_AFFINITY_FORMAT: OpenMP 5's field specifiers, %[[[0].]size]type with
// type a letter or a {long_name}. One implementation serves the key's check
// at start-up and libjoule-omp's lines (joule_omp_format_affinity).
#pragma once

#include <string>
#include <string_view>

#include "joule/team.h"

namespace joule::api {

// The line for `info`. Unknown fields are copied as written (a program's
// omp_display_affinity shows them rather than failing).
std::string format_affinity(std::string_view format, const joule_omp_thread_info_t& info);
// What is wrong with the first bad field and where; "" when nothing is.
std::string affinity_format_error(std::string_view format);
// Throws std::invalid_argument naming the first bad field (the key's check).
void check_affinity_format(std::string_view format);
// The field letters and names, for the key's message.
std::string affinity_fields();

}  // namespace joule::api
