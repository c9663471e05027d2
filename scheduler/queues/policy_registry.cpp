#include "policy_registry.hpp"

#include <stdexcept>

namespace joule::queues {
namespace {

struct Entry {
  const char* name;
  PolicyFactory make;
};

// The registration list: one line per policy.
constexpr Entry kPolicies[] = {
    {"work-stealing", make_work_stealing}, {"fifo", make_fifo},         {"lifo", make_lifo},
    {"priority", make_priority},           {"locality", make_locality},
};

}  // namespace

std::vector<std::string> policy_names() {
  std::vector<std::string> out;
  for (const auto& e : kPolicies) out.emplace_back(e.name);
  return out;
}

std::unique_ptr<ReadyQueue> make_policy(std::string_view name, int num_workers) {
  for (const auto& e : kPolicies)
    if (name == e.name) return e.make(num_workers);
  throw std::invalid_argument("unknown queue policy " + std::string(name));
}

}  // namespace joule::queues
