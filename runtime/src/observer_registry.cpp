// The list of optional subsystems that observe the runtime. One line per
// subsystem; each factory decides from the Config whether it is on.
#include <time.h>

#include <vector>

#include "observer.hpp"

namespace joule::rt {

std::uint64_t now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::uint64_t(ts.tv_sec) * 1000000000ull + std::uint64_t(ts.tv_nsec);
}

namespace {

constexpr ObserverFactory kBuiltIn[] = {
    make_platform_observer,  // DVFS emulation, meters, thermal, counters
    make_trace_observer,     // Paraver / Chrome traces, run statistics
};

std::vector<ObserverFactory>& registered() {
  static std::vector<ObserverFactory> list;
  return list;
}

}  // namespace

std::vector<std::unique_ptr<Observer>> make_observers(const Config& cfg) {
  std::vector<std::unique_ptr<Observer>> out;
  auto add = [&](ObserverFactory make) {
    if (!make) return;
    if (auto o = make(cfg)) out.push_back(std::move(o));
  };
  for (ObserverFactory make : kBuiltIn) add(make);
  for (ObserverFactory make : registered()) add(make);
  return out;
}

void register_observer_factory(ObserverFactory make) { registered().push_back(make); }

void unregister_observer_factory(ObserverFactory make) {
  auto& list = registered();
  std::erase(list, make);
}

}  // namespace joule::rt
