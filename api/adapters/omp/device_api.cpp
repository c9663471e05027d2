// The device queries on the host, answered as libgomp answers on a node
// without an offload device, with their Fortran twins (omp_fortran.cpp's
// conventions), and the checks the device constructs and routines share.
#include <cstdint>
#include <cstdio>
#include <string>

#include "target.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

constexpr int kInitialDevice = -1;  // omp_initial_device (OpenMP 5.2 §18.7)
constexpr int kMandatory = 1;       // Icv::target_offload

}  // namespace

void check_offload(const char* construct, int device) {
  if (icv().target_offload != kMandatory || device == kHostFallback) return;
  fail_start((std::string("OMP_TARGET_OFFLOAD=mandatory, but joule has no device for the ") +
              construct + " construct; unset it or set it to default to run it on the host")
                 .c_str());
}

bool is_host_device(int device_num) { return device_num == kInitialDevice || device_num == 0; }

bool usable_device(int device_num, const char* routine) {
  if (is_host_device(device_num)) return true;
  if (icv().target_offload == kMandatory)
    fail_start((std::string("OMP_TARGET_OFFLOAD=mandatory, but ") + routine + " names device " +
                std::to_string(device_num) + ", and joule has no device")
                   .c_str());
  return false;
}

}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

// The initial device's number is omp_get_num_devices(): 0 here.
JOULE_EXPORT int omp_get_num_devices(void) { return 0; }
JOULE_EXPORT int omp_get_initial_device(void) { return 0; }
JOULE_EXPORT int omp_get_device_num(void) { return 0; }
JOULE_EXPORT int omp_is_initial_device(void) { return 1; }
// default-device-var holds what is set, as libgomp's does: any number runs on the host.
JOULE_EXPORT int omp_get_default_device(void) { return icv().default_device; }
JOULE_EXPORT void omp_set_default_device(int device_num) { icv().default_device = device_num; }

JOULE_EXPORT int omp_get_num_devices_(void) { return omp_get_num_devices(); }
JOULE_EXPORT int omp_get_initial_device_(void) { return omp_get_initial_device(); }
JOULE_EXPORT int omp_get_device_num_(void) { return omp_get_device_num(); }
JOULE_EXPORT int omp_is_initial_device_(void) { return omp_is_initial_device(); }
JOULE_EXPORT int omp_get_default_device_(void) { return omp_get_default_device(); }
JOULE_EXPORT void omp_set_default_device_(const int* d) { omp_set_default_device(*d); }
JOULE_EXPORT void omp_set_default_device_8_(const std::int64_t* d) {
  omp_set_default_device(int(*d));
}

}  // extern "C"
