// Ready-queue policies by name (JOULE_QUEUES).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "ready_queue.hpp"

namespace joule::queues {

std::vector<std::string> policy_names();
// Throws std::invalid_argument for an unknown name.
std::unique_ptr<ReadyQueue> make_policy(std::string_view name, int num_workers);

// Factories, one per file in policies/.
std::unique_ptr<ReadyQueue> make_fifo(int num_workers);
std::unique_ptr<ReadyQueue> make_lifo(int num_workers);
std::unique_ptr<ReadyQueue> make_priority(int num_workers);
std::unique_ptr<ReadyQueue> make_work_stealing(int num_workers);
std::unique_ptr<ReadyQueue> make_locality(int num_workers);

}  // namespace joule::queues
