// The few NVML types joule uses, declared from NVML's documented C ABI
// (NVML API Reference Guide: "Device Enums", "Error reporting",
// "nvmlMemory_t"): the toolkit here ships no nvml.h, and joule loads
// libnvidia-ml at run time (nvml_library.hpp), so only the ABI matters.
// The fake NVML of the tests (tests/offload/cuda/nvml/fake_nvml/) uses
// this header too, so both sides agree on every value.
#pragma once

namespace joule::cuda::nvml {

// nvmlReturn_t: a C enum, passed as int.
using Return = int;
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorUnknown = 999;

// nvmlDevice_t: an opaque handle.
struct DeviceSt;
using Device = DeviceSt*;

// nvmlClockType_t.
inline constexpr int kClockGraphics = 0;
inline constexpr int kClockSm = 1;
inline constexpr int kClockMem = 2;

// nvmlRestrictedAPI_t and nvmlEnableState_t (nvmlDeviceGetAPIRestriction).
inline constexpr int kRestrictedApiSetApplicationClocks = 0;
inline constexpr int kFeatureEnabled = 1;

// nvmlMemory_t (v1): bytes.
struct Memory {
  unsigned long long total, free, used;
};

}  // namespace joule::cuda::nvml
