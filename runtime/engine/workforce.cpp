// The workforce room (workforce.hpp): adding workers and their steal orders.
#include "workforce.hpp"

#include "runtime.hpp"

namespace joule::engine {

void Workforce::reserve(int owned, int max, int machine_cpus) {
  owned_ = owned;
  max_ = max;
  slots_ = std::make_unique<std::atomic<Worker*>[]>(std::size_t(max_));
  of_cpu_.assign(std::size_t(std::max(machine_cpus, 1) + 1), -1);
  spares_.reserve(max);
}

int Workforce::current() {
  const ThreadContext& ctx = rt_.context();
  return ctx.worker ? ctx.worker->index() : -1;
}

int Workforce::index_of_cpu(int cpu) const noexcept {
  if (cpu < 0 || std::size_t(cpu) >= of_cpu_.size()) return -1;
  return of_cpu_[std::size_t(cpu)];
}

Worker& Workforce::add(int cpu) {
  const int index = count_.load(std::memory_order_relaxed);
  if (index >= max_) throw joule::error(JOULE_ERR_STATE, "joule: too many workers");
  const int node = rt_.topology().numa_node_of(cpu);  // the worker lives on its node
  workers_.push_back(std::unique_ptr<Worker>(new (node) Worker(rt_, index, cpu, node)));
  slots_[std::size_t(index)].store(workers_.back().get(), std::memory_order_release);
  if (cpu >= 0 && std::size_t(cpu) < of_cpu_.size() && of_cpu_[std::size_t(cpu)] < 0)
    of_cpu_[std::size_t(cpu)] = index;
  count_.store(index + 1, std::memory_order_release);
  if (index >= owned_) {  // a guest: thieves may look at its shard from now on
    set_victims(index);
    rt_.scheduler().set_active(index + 1);
  }
  return *workers_.back();
}

// Other workers, nearest first by the machine's topology; guests added
// later are reached through the random window (VictimOrder).
void Workforce::set_victims(int index) {
  const int cpu = worker(index)->cpu();
  std::vector<std::pair<int, int>> others;
  for (int i = 0; i < count(); ++i)
    if (i != index) others.emplace_back(i, worker(i)->cpu());
  rt_.scheduler().victims().set(index, rt_.topology().victim_levels(cpu, others));
}

}  // namespace joule::engine
