// The PAPI parts: library set-up (once per process), per-thread event sets
// for task counters, and the PAPI energy meter (meter.hpp). Built without
// PAPI (JOULE_HAVE_PAPI=0) every call fails with a reason instead.
#pragma once

#include <string>
#include <vector>

namespace joule::platform {

// PAPI_library_init + PAPI_thread_init, once; false with the reason.
bool papi_init(std::string* why);

// An event set on the calling thread (PAPI counts per thread).
class PapiEventSet {
 public:
  PapiEventSet() = default;
  ~PapiEventSet() { close(); }
  PapiEventSet(const PapiEventSet&) = delete;
  PapiEventSet& operator=(const PapiEventSet&) = delete;

  // Adds each of `events` the machine has (others are skipped, listed in
  // *skipped) and starts counting. False if none could be added.
  bool open(const std::vector<std::string>& events, std::vector<std::string>* skipped,
            std::string* why);
  bool is_open() const noexcept { return set_ >= 0; }
  const std::vector<std::string>& names() const noexcept { return names_; }
  // Current values, names().size() of them.
  bool read(long long* values) noexcept;
  void close() noexcept;

 private:
  int set_ = -1;
  bool registered_ = false;
  std::vector<std::string> names_;
};

}  // namespace joule::platform
