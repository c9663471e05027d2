// The optional subsystems that observe the runtime, in registration order;
// each factory decides from the Config whether it is on.
#include <algorithm>
#include <vector>

#include "observer.hpp"

namespace joule::core {

namespace {

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
  for (ObserverFactory make : registered()) add(make);
  return out;
}

void register_observer_factory(ObserverFactory make) {
  auto& list = registered();
  if (std::find(list.begin(), list.end(), make) == list.end()) list.push_back(make);
}

void unregister_observer_factory(ObserverFactory make) {
  auto& list = registered();
  std::erase(list, make);
}

}  // namespace joule::core
