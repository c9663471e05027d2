// Keys of the ready queues: the policy (any registered name) and immediate
// successor.
#include <stdexcept>
#include <string>

#include "key_table.hpp"
#include "policy_registry.hpp"
#include "queue_settings.hpp"

namespace joule::queues {

std::vector<core::ConfigKey> queues_config_keys() {
  using S = QueueSettings;
  std::string names;
  for (const auto& n : policy_names()) names += (names.empty() ? "" : ", ") + n;
  core::KeyTable<S> t;
  t.custom(
       "JOULE_QUEUES", "choice", names, "ready-queue policy",
       [](S& s, std::string_view v) {
         for (const auto& n : policy_names())
           if (n == v) return void(s.policy = n);
         throw std::invalid_argument("unknown queue policy");
       },
       [](const S& s) { return s.policy; })
      .alias("JOULE_SCHEDULER");  // the name before the layer was called queues
  t.flag("JOULE_IMMEDIATE_SUCCESSOR", &S::immediate_successor,
         "a finishing task's first released successor runs next on the same worker");
  return t.keys();
}

}  // namespace joule::queues
