# JOULE_CUDA: CUDA GPUs as offload devices (docs/offload.md, "CUDA GPUs").
#   AUTO  on when the CUDA toolkit (nvcc and its headers) is found   (default)
#   ON    the same, but a missing toolkit stops the configuration
#   OFF   no CUDA code is built; the cuda layer is its null backend
# libjoule never links the CUDA libraries: it loads the driver
# (libcuda.so.1) and NVML (libnvidia-ml.so.1) at run time, so one build
# runs on machines with and without a GPU. The toolkit is needed for
# cuda.h at build time and for the .cu tests, benchmarks and joulecc's nvcc.
# Sets JOULE_HAVE_CUDA and, when on, enables the CUDA language.
set(JOULE_CUDA AUTO CACHE STRING "CUDA GPUs as offload devices: AUTO, ON or OFF")
set_property(CACHE JOULE_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${JOULE_CUDA}" _joule_cuda)
if(NOT _joule_cuda MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "joule: JOULE_CUDA='${JOULE_CUDA}' (allowed: AUTO, ON, OFF)")
endif()

set(JOULE_HAVE_CUDA OFF)
if(NOT _joule_cuda STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  find_package(CUDAToolkit QUIET)
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
    # Hopper (H100/H200) and Ampere unless the user chose; PTX of the
    # newest so later GPUs JIT-compile it.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80-real;90" CACHE STRING "CUDA architectures")
    endif()
    enable_language(CUDA)
    set(JOULE_HAVE_CUDA ON)
    message(STATUS "joule: CUDA on (toolkit ${CUDAToolkit_VERSION}, nvcc ${CMAKE_CUDA_COMPILER}, "
                   "architectures ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(_joule_cuda STREQUAL "ON")
    message(FATAL_ERROR "joule: JOULE_CUDA=ON but no CUDA toolkit was found (nvcc: "
                        "'${CMAKE_CUDA_COMPILER}'); install it, set CUDAToolkit_ROOT, or "
                        "configure with -DJOULE_CUDA=OFF")
  else()
    message(STATUS "joule: CUDA off (no CUDA toolkit found; JOULE_CUDA=AUTO)")
  endif()
else()
  message(STATUS "joule: CUDA off (JOULE_CUDA=OFF)")
endif()
