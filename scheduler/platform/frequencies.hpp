// The DVFS side of the platform: the backend that changes frequencies
// (dvfs.hpp: none, emulated, cpufreq, service), the nominal P-state table
// that stands in where a CPU's frequency is not controlled, setting a whole
// chip at once, the start frequency (JOULE_DVFS_START), and putting back
// what was changed at the end. Platform probes and picks the backend
// (platform.cpp); policies and tests drive it through this class.
//
//   auto& f = platform.frequencies();
//   if (f.can_set()) f.set_chip(0, f.pstates(cpu).front());
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dvfs.hpp"
#include "machine.hpp"

namespace joule::platform {

class Frequencies {
 public:
  Frequencies(const Machine& machine, std::vector<std::uint32_t> nominal);
  Frequencies(const Frequencies&) = delete;
  Frequencies& operator=(const Frequencies&) = delete;

  // The backend probing chose (before the run starts).
  void set_backend(std::unique_ptr<Dvfs> dvfs) { dvfs_ = std::move(dvfs); }
  Dvfs& backend() noexcept { return *dvfs_; }
  const Dvfs& backend() const noexcept { return *dvfs_; }
  bool can_set() const noexcept { return dvfs_->can_set(); }

  // Ascending kHz; the nominal table when the CPU's frequency is not controlled.
  const std::vector<std::uint32_t>& pstates(int cpu) const;
  const std::vector<std::uint32_t>& nominal() const noexcept { return nominal_; }
  std::uint32_t frequency(int cpu) const;
  bool set_core(int cpu, std::uint32_t khz);
  // Every controlled CPU of the chip (the whole domain of each).
  bool set_chip(int chip, std::uint32_t khz);

  // JOULE_DVFS_START on these CPUs: "min", "max" or GHz; empty: as found.
  void apply_start(const std::string& start, const std::vector<int>& cpus);
  // Puts back the frequencies and governors the run changed.
  void restore() { dvfs_->restore(); }

 private:
  const Machine& machine_;
  std::vector<std::uint32_t> nominal_;  // P-states of uncontrolled CPUs
  std::unique_ptr<Dvfs> dvfs_;
};

}  // namespace joule::platform
