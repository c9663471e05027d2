// The C ABI of OpenMP affinity (joule/team.h): the plan of omp_bind_plan.cpp
// on this machine's hwloc topology, kept for libjoule-omp's place queries.
// Made once, before the runtime starts, and only read afterwards.
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>

#include "joule/team.h"
#include "omp_bind_plan.hpp"
#include "runtime.hpp"

namespace {

using joule::api::BindPlan;
using joule::core::Config;

struct Kept {
  BindPlan plan;
  std::string cpus;
  std::string format;
};

std::mutex g_mutex;
std::unique_ptr<Kept> g_kept;              // the latest plan
std::vector<std::unique_ptr<Kept>> g_old;  // earlier ones: their strings may still be read
std::atomic<const Kept*> g_current{nullptr};

// The topology is loaded only when threads are bound (a few milliseconds).
BindPlan plan_on_this_machine(const Config& c, const std::vector<int>& mask) {
  const auto& o = c.get<joule::api::OmpSettings>();
  const int workers = c.get<joule::engine::EngineSettings>().workers;
  if (o.first_bind() == joule::api::OmpBind::off)
    return make_bind_plan(nullptr, o, workers, c.cpus, mask);
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
    if (topo) hwloc_topology_destroy(topo);
    throw joule::error(JOULE_ERR_STATE, "joule: hwloc could not load the machine topology");
  }
  try {
    BindPlan p = make_bind_plan(topo, o, workers, c.cpus, mask);
    hwloc_topology_destroy(topo);
    return p;
  } catch (...) {
    hwloc_topology_destroy(topo);
    throw;
  }
}

void fill(const Kept& k, const joule::api::OmpSettings& o, joule_omp_affinity_t* out) {
  out->num_places = int(k.plan.places.size());
  out->workers = k.plan.workers;
  out->cpus = k.cpus.c_str();
  out->note = k.plan.note.c_str();
  out->bind_levels = int(std::min<std::size_t>(k.plan.binds.size(), 8));
  for (int i = 0; i < out->bind_levels; ++i) out->bind[i] = int(k.plan.binds[std::size_t(i)]);
  out->display_affinity = o.display_affinity;
  out->affinity_format = k.format.c_str();
}

}  // namespace

extern "C" {

int joule_omp_make_affinity(const int* mask, int n, joule_omp_affinity_t* out) {
  if (!out || out->struct_size < sizeof(joule_omp_affinity_t) || n < 0 || (n && !mask))
    return JOULE_ERR_INVALID;
  try {
    using joule::engine::Runtime;
    const Config c = Runtime::running() ? Runtime::get().config() : Config::load({});
    auto k = std::make_unique<Kept>();
    k->plan = plan_on_this_machine(c, std::vector<int>(mask, mask + n));
    k->cpus = joule::core::format_cpu_list(k->plan.cpus);
    k->format = c.get<joule::api::OmpSettings>().affinity_format;
    fill(*k, c.get<joule::api::OmpSettings>(), out);
    std::lock_guard guard(g_mutex);
    if (g_kept) g_old.push_back(std::move(g_kept));
    g_kept = std::move(k);
    g_current.store(g_kept.get(), std::memory_order_release);
    return JOULE_OK;
  } catch (const joule::error& e) {
    return e.code();
  }
}

int joule_omp_place_cpus(int place, int* cpus, int max) {
  const Kept* k = g_current.load(std::memory_order_acquire);
  if (!k || place < 0 || place >= int(k->plan.places.size())) return -1;
  const auto& p = k->plan.places[std::size_t(place)];
  for (int i = 0; i < max && i < int(p.size()); ++i) cpus[i] = p[std::size_t(i)];
  return int(p.size());
}

int joule_omp_cpu_place(int cpu, int* part_first, int* part_len) {
  const Kept* k = g_current.load(std::memory_order_acquire);
  if (!k || cpu < 0 || cpu >= int(k->plan.of_cpu.size())) return -1;
  const joule::api::ThreadPlace& t = k->plan.of_cpu[std::size_t(cpu)];
  if (part_first) *part_first = t.part_first;
  if (part_len) *part_len = t.part_len;
  return t.place;
}

}  // extern "C"
