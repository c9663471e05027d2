#include "machine.hpp"

#include <hwloc.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace joule::platform {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

TopologyPtr load_topology(const std::string& synthetic) {
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0) throw std::runtime_error("hwloc_topology_init failed");
  TopologyPtr owned(t);
  if (!synthetic.empty() && hwloc_topology_set_synthetic(t, synthetic.c_str()) != 0)
    throw std::runtime_error("bad hwloc synthetic topology '" + synthetic + "'");
  if (hwloc_topology_load(t) != 0) throw std::runtime_error("hwloc_topology_load failed");
  return owned;
}

int ancestor_index(hwloc_topology_t t, hwloc_obj_t pu, hwloc_obj_type_t type) {
  hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(t, type, pu);
  return a ? int(a->logical_index) : 0;
}

int numa_index(hwloc_obj_t pu) {
  // NUMA nodes hang off the memory children of an ancestor.
  for (hwloc_obj_t a = pu; a; a = a->parent)
    for (hwloc_obj_t m = a->memory_first_child; m; m = m->next_sibling)
      if (m->type == HWLOC_OBJ_NUMANODE) return int(m->logical_index);
  return 0;
}

}  // namespace

Machine Machine::load(const std::string& synthetic) {
  TopologyPtr t = load_topology(synthetic);
  Machine m;
  m.synthetic_ = !synthetic.empty();
  const int npus = hwloc_get_nbobjs_by_type(t.get(), HWLOC_OBJ_PU);
  for (int i = 0; i < npus; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(t.get(), HWLOC_OBJ_PU, unsigned(i));
    m.pus_.push_back({int(pu->os_index), ancestor_index(t.get(), pu, HWLOC_OBJ_CORE),
                      ancestor_index(t.get(), pu, HWLOC_OBJ_PACKAGE), numa_index(pu)});
  }
  if (m.pus_.empty()) throw std::runtime_error("hwloc found no processing units");
  std::sort(m.pus_.begin(), m.pus_.end(), [](auto& a, auto& b) { return a.cpu < b.cpu; });
  m.chips_ = std::max(1, hwloc_get_nbobjs_by_type(t.get(), HWLOC_OBJ_PACKAGE));
  m.cores_ = std::max(1, hwloc_get_nbobjs_by_type(t.get(), HWLOC_OBJ_CORE));
  m.numa_ = std::max(1, hwloc_get_nbobjs_by_type(t.get(), HWLOC_OBJ_NUMANODE));
  return m;
}

Machine Machine::uniform(int chips, int cores_per_chip) {
  Machine m;
  m.synthetic_ = true;
  m.chips_ = std::max(1, chips);
  m.cores_ = m.chips_ * std::max(1, cores_per_chip);
  for (int c = 0; c < m.cores_; ++c) m.pus_.push_back({c, c, c / std::max(1, cores_per_chip), 0});
  return m;
}

const PuInfo& Machine::pu_of(int cpu) const {
  auto it = std::lower_bound(pus_.begin(), pus_.end(), cpu,
                             [](const PuInfo& p, int c) { return p.cpu < c; });
  if (it != pus_.end() && it->cpu == cpu) return *it;
  return pus_[std::size_t(cpu < 0 ? 0 : cpu) % pus_.size()];
}

std::vector<int> Machine::cpus_of_chip(int chip) const {
  std::vector<int> out;
  for (const auto& p : pus_)
    if (p.chip == chip) out.push_back(p.cpu);
  return out;
}

std::string Machine::describe() const {
  return std::string(synthetic_ ? "synthetic " : "") + std::to_string(chips_) + " chip(s), " +
         std::to_string(cores_) + " core(s), " + std::to_string(pus_.size()) + " PU(s), " +
         std::to_string(numa_) + " NUMA node(s)";
}

}  // namespace joule::platform
