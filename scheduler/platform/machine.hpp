// The machine model the platform layer works on: chips (hwloc packages),
// cores, PUs and NUMA nodes, from this machine or from an hwloc synthetic
// description (JOULE_TOPOLOGY) so tests and demos can pretend to have
// several chips. CPU numbers are PU OS indices; a process CPU that the
// model lacks maps to PU (cpu mod N).
#pragma once

#include <string>
#include <vector>

namespace joule::platform {

struct PuInfo {
  int cpu = 0;   // OS index
  int core = 0;  // logical core index across the machine
  int chip = 0;  // logical package index
  int numa = 0;  // logical NUMA node index
};

class Machine {
 public:
  // Empty description: this machine. Throws std::runtime_error if hwloc fails.
  static Machine load(const std::string& synthetic);
  // A flat model without hwloc: `chips` packages of `cores_per_chip` one-PU cores.
  static Machine uniform(int chips, int cores_per_chip);

  int num_chips() const noexcept { return chips_; }
  int num_cores() const noexcept { return cores_; }
  int num_numa() const noexcept { return numa_; }
  int num_pus() const noexcept { return int(pus_.size()); }
  const std::vector<PuInfo>& pus() const noexcept { return pus_; }
  // The model PU of a process CPU (cpu mod N if the model lacks it).
  const PuInfo& pu_of(int cpu) const;
  int chip_of(int cpu) const { return pu_of(cpu).chip; }
  // CPUs (OS indices) of a chip, ascending.
  std::vector<int> cpus_of_chip(int chip) const;
  bool synthetic() const noexcept { return synthetic_; }
  std::string describe() const;

 private:
  std::vector<PuInfo> pus_;  // ascending by cpu
  int chips_ = 1, cores_ = 1, numa_ = 1;
  bool synthetic_ = false;
};

}  // namespace joule::platform
